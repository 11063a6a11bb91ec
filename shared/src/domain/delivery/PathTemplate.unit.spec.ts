// A path template is checked when a request names it: each refusal names its reason; a good one parses folder by folder.
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_PATH_TEMPLATE, MAX_TEMPLATE_DEPTH, MAX_TEMPLATE_LENGTH, parsePathTemplate } from "./PathTemplate.ts"

const reasonOf = (template: string): string => {
  const parsed = parsePathTemplate(template)
  if (Result.isSuccess(parsed)) throw new Error(`accepted ${template}`)
  return parsed.failure.reason
}

describe("parsePathTemplate", () => {
  it("parses the default template into folders of text and fields", () => {
    const parsed = parsePathTemplate(DEFAULT_PATH_TEMPLATE)
    expect(Result.isSuccess(parsed) && parsed.success.segments).toEqual([
      [{ _tag: "Field", field: "uploader" }],
      [
        { _tag: "Field", field: "title" },
        { _tag: "Text", text: " [" },
        { _tag: "Field", field: "id" },
        { _tag: "Text", text: "]." },
        { _tag: "Field", field: "ext" }
      ]
    ])
  })

  it("reads doubled braces as literal braces", () => {
    const parsed = parsePathTemplate("{{x}} {id}.{ext}")
    expect(Result.isSuccess(parsed) && parsed.success.segments[0]?.[0]).toEqual({ _tag: "Text", text: "{x} " })
  })

  it.each([
    ["{uploader/{title}.{ext}", "unbalanced brace"],
    ["{title.{ext}", "unbalanced brace"],
    ["{title}}.{ext}", "unbalanced brace"],
    ["title}.{ext}", "unbalanced brace"],
    ["{title", "unbalanced brace"],
    ["{cookies}.{ext}", "unknown field {cookies}"],
    ["{}.{ext}", "unknown field {}"],
    ["/srv/{title}.{ext}", "absolute path"],
    ["C:/media/{title}.{ext}", "absolute path"],
    ["~/{title}.{ext}", "absolute path"],
    ["../{title}.{ext}", "'..'"],
    ["a/../{title}.{ext}", "'..'"],
    ["./{title}.{ext}", "'.'"],
    ["a//{title}.{ext}", "empty folder"],
    ["{uploader}/", "empty folder"],
    ["a\\{title}.{ext}", "not allowed"],
    ["ab:c/{title}.{ext}", "not allowed"],
    ["{title}?.{ext}", "not allowed"],
    ["{title}\u0001.{ext}", "not allowed"],
    ["", "empty"],
    ["   ", "empty"],
    [`${"a/".repeat(MAX_TEMPLATE_DEPTH)}{id}`, "deeper than"],
    [`${"a".repeat(MAX_TEMPLATE_LENGTH)}{id}`, "longer than"]
  ])("refuses %j (%s)", (template, reason) => expect(reasonOf(template)).toContain(reason))
})
