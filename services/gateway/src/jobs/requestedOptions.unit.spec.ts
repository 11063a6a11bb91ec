// A download's delivery fields become the job's delivery order; a bad template is 422 invalid_path_template with its
// reason, sidecars without a destination 422 invalid_options.
import { DownloadByUrl } from "@mds/shared/api/Requests"
import { DEFAULT_PATH_TEMPLATE } from "@mds/shared/domain/delivery/PathTemplate"
import { Effect, Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { requestedOptions } from "./requestedOptions.ts"

const DESTINATION = "dst_aaaaaaaaaaaaaaaaaaaaaaaa"
const optionsOf = (fields: Record<string, unknown>) =>
  Effect.runSync(
    Effect.result(
      requestedOptions(Schema.decodeUnknownSync(DownloadByUrl)({ url: "https://example.com/v", format: "video_best", ...fields }))
    )
  )

describe("requestedOptions: delivery", () => {
  it("orders the delivery with the request's template and sidecars, or the default template", () => {
    const named = optionsOf({ destination: { id: DESTINATION, path: "{uploader}/{title}.{ext}" }, sidecars: ["nfo"] })
    expect(Result.isSuccess(named) && named.success.delivery).toEqual({
      destinationId: DESTINATION,
      pathTemplate: "{uploader}/{title}.{ext}",
      sidecars: ["nfo"]
    })
    const plain = optionsOf({ destination: { id: DESTINATION } })
    expect(Result.isSuccess(plain) && plain.success.delivery).toEqual({
      destinationId: DESTINATION,
      pathTemplate: DEFAULT_PATH_TEMPLATE,
      sidecars: []
    })
  })

  it("leaves a download without a destination as it was", () => {
    const plain = optionsOf({})
    expect(Result.isSuccess(plain) && plain.success).toEqual({})
  })

  it.each([
    ["{nope}.{ext}", "unknown field {nope}"],
    ["/abs/{id}.{ext}", "absolute path"],
    ["{title.{ext}", "unbalanced brace"],
    ["../{id}.{ext}", "'..'"]
  ])("refuses the template %j: 422 invalid_path_template naming %s", (path, reason) => {
    const refused = optionsOf({ destination: { id: DESTINATION, path } })
    expect(Result.isFailure(refused) && refused.failure._tag).toBe("InvalidPathTemplate")
    expect(Result.isFailure(refused) && refused.failure.message).toContain(reason)
  })

  it("refuses sidecars without a destination, and subtitle files without the languages", () => {
    const alone = optionsOf({ sidecars: ["nfo"] })
    expect(Result.isFailure(alone) && alone.failure.message).toContain("sidecars: only with a destination")
    const noLanguages = optionsOf({ destination: { id: DESTINATION }, sidecars: ["subtitles"] })
    expect(Result.isFailure(noLanguages) && noLanguages.failure._tag).toBe("InvalidOptions")
  })
})
