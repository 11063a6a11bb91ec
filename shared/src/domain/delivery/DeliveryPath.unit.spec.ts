// Any template that parses, rendered with any values, gives a relative path inside the destination whose every name
// is safe on Windows/SMB and within the limits; and the usual templates render as a reader expects.
import { Result } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MAX_FOLDER_BYTES, MAX_PATH_BYTES, MAX_STEM_BYTES, renderDeliveryPath, sidecarPath } from "./DeliveryPath.ts"
import { isSafeName, utf8Length } from "./PathSegment.ts"
import { DEFAULT_PATH_TEMPLATE, type PathTemplate, parsePathTemplate } from "./PathTemplate.ts"
import { TEMPLATE_FIELDS, type TemplateValues } from "./TemplateFields.ts"

const parsed = (template: string): PathTemplate => {
  const result = parsePathTemplate(template)
  if (Result.isFailure(result)) throw new Error(result.failure.reason)
  return result.success
}

describe("renderDeliveryPath", () => {
  it("renders the default template", () => {
    const path = renderDeliveryPath(parsed(DEFAULT_PATH_TEMPLATE), { uploader: "Some Channel", title: "A talk", id: "abc", ext: "mp4" })
    expect(path).toEqual({ folders: ["Some Channel"], stem: "A talk [abc]", ext: "mp4", path: "Some Channel/A talk [abc].mp4" })
    expect(sidecarPath(path, ".nfo")).toBe("Some Channel/A talk [abc].nfo")
  })

  it("keeps a value's slashes and dots from making folders or leaving the destination", () => {
    const path = renderDeliveryPath(parsed("{uploader}/{title}.{ext}"), { uploader: "..", title: "../../etc/passwd", ext: "mp4" })
    expect(path.path).toBe("_/_.._etc_passwd.mp4")
  })

  it("writes NA for a missing field, as yt-dlp does, and adds the extension a template leaves out", () => {
    expect(renderDeliveryPath(parsed("{playlist_title}/{title}"), { title: "x", ext: "webm" }).path).toBe("NA/x.webm")
  })

  it("renames reserved device names and strips trailing dots and spaces", () => {
    expect(renderDeliveryPath(parsed("{uploader}/{title}.{ext}"), { uploader: "con", title: "nul. ", ext: "mp4" }).path).toBe(
      "con_/nul_.mp4"
    )
  })

  it("cuts a long title between characters, within the stem's limit", () => {
    const path = renderDeliveryPath(parsed("{title}.{ext}"), { title: "é".repeat(400), ext: "mp4" })
    expect(utf8Length(path.stem)).toBeLessThanOrEqual(MAX_STEM_BYTES)
    expect(path.stem).toMatch(/^é+$/u)
  })

  const templateText = fc
    .array(
      fc.oneof(
        fc.constantFrom(...TEMPLATE_FIELDS).map((field) => `{${field}}`),
        fc.constantFrom("/", ".", " ", "-", "[", "]", "..", "{{", "}}", "CON", "é", "😀"),
        fc.string({ maxLength: 12 })
      ),
      { minLength: 1, maxLength: 24 }
    )
    .map((parts) => parts.join(""))
  const value = fc.oneof(
    fc.string({ maxLength: 300 }),
    fc.string({ unit: "binary", maxLength: 300 }),
    fc.constantFrom("..", ".", "/", "\\", "CON", "nul.txt", " . ", "a/../b", "C:\\x"),
    fc.integer(),
    fc.constant(null)
  )
  const values: fc.Arbitrary<TemplateValues> = fc.dictionary(fc.constantFrom(...TEMPLATE_FIELDS), value)

  it("renders any template that parses to a safe relative path within the limits", () => {
    fc.assert(
      fc.property(templateText, values, (text, fieldValues) => {
        const template = parsePathTemplate(text)
        fc.pre(Result.isSuccess(template))
        if (Result.isFailure(template)) return
        const path = renderDeliveryPath(template.success, fieldValues)
        const names = path.path.split("/")
        expect(path.path.startsWith("/")).toBe(false)
        expect(names).not.toContain("..")
        expect(names).not.toContain(".")
        expect(utf8Length(path.path)).toBeLessThanOrEqual(MAX_PATH_BYTES)
        expect(names).toHaveLength(template.success.segments.length)
        for (const folder of path.folders) expect(isSafeName(folder, MAX_FOLDER_BYTES)).toBe(true)
        expect(isSafeName(path.stem, MAX_STEM_BYTES)).toBe(true)
        expect(path.path).toBe([...path.folders, `${path.stem}.${path.ext}`].join("/"))
      }),
      { numRuns: 1000 }
    )
  })
})
