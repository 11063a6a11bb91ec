// Sidecars take the media's folders and stem, so a library finds them beside it.
import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { renderDeliveryPath } from "./DeliveryPath.ts"
import { parsePathTemplate } from "./PathTemplate.ts"
import { infoJsonPath, nfoPath, posterPath, Sidecars, subtitlePath, thumbnailPath, tvShowNfoPath } from "./Sidecars.ts"

const template = parsePathTemplate("{uploader}/{title} [{id}].{ext}")
if (Result.isFailure(template)) throw new Error("template")
const media = renderDeliveryPath(template.success, { uploader: "Chan", title: "Talk", id: "x1", ext: "mp4" })

describe("sidecar names", () => {
  it("sit beside the media with its stem", () => {
    expect(infoJsonPath(media)).toBe("Chan/Talk [x1].info.json")
    expect(nfoPath(media)).toBe("Chan/Talk [x1].nfo")
    expect(thumbnailPath(media, "webp")).toBe("Chan/Talk [x1]-thumb.webp")
    expect(subtitlePath(media, "pt-BR", "vtt")).toBe("Chan/Talk [x1].pt-BR.vtt")
    expect(tvShowNfoPath(media)).toBe("Chan/tvshow.nfo")
    expect(posterPath(media, "jpg")).toBe("Chan/poster.jpg")
  })

  it("put the show's files in the template's first folder, or at the root", () => {
    const nested = parsePathTemplate("{uploader}/{upload_date}/{title}.{ext}")
    if (Result.isFailure(nested)) throw new Error("template")
    const deep = renderDeliveryPath(nested.success, { uploader: "Chan", upload_date: "20240102", title: "Talk", ext: "mp4" })
    expect(tvShowNfoPath(deep)).toBe("Chan/tvshow.nfo")
    expect(posterPath(deep, "webp")).toBe("Chan/poster.webp")
    const flat = parsePathTemplate("{title}.{ext}")
    if (Result.isFailure(flat)) throw new Error("template")
    expect(tvShowNfoPath(renderDeliveryPath(flat.success, { title: "Talk", ext: "mp4" }))).toBe("tvshow.nfo")
  })

  it("are asked by kind, each known kind at most once in number", () => {
    expect(Schema.decodeUnknownSync(Sidecars)(["nfo", "thumbnail"])).toEqual(["nfo", "thumbnail"])
    expect(() => Schema.decodeUnknownSync(Sidecars)(["cover"])).toThrow()
    expect(() => Schema.decodeUnknownSync(Sidecars)(["nfo", "nfo"])).toThrow("at most once")
  })
})
