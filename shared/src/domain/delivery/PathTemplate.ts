// A delivery path template, `{uploader}/{title} [{id}].{ext}`: checked when a request names it (an unknown field, an
// unbalanced brace, an absolute path or a `..` is refused with the reason) and kept parsed, folder by folder.
import { Result, Schema } from "effect"
import { isTemplateField, type TemplateField } from "./TemplateFields.ts"

export const MAX_TEMPLATE_LENGTH = 512
/** Folders a template may nest, the file's own name included. */
export const MAX_TEMPLATE_DEPTH = 8

/** The template a destination uses when neither it nor the request names one. */
export const DEFAULT_PATH_TEMPLATE = "{uploader}/{title} [{id}].{ext}"

export type TemplatePart = { readonly _tag: "Text"; readonly text: string } | { readonly _tag: "Field"; readonly field: TemplateField }

/** One folder (or the file's name, last): its literal text and fields in order. */
export type TemplateSegment = ReadonlyArray<TemplatePart>

export interface PathTemplate {
  readonly source: string
  readonly segments: ReadonlyArray<TemplateSegment>
}

export class PathTemplateRejected extends Schema.TaggedError<PathTemplateRejected>()("PathTemplateRejected", {
  template: Schema.String,
  reason: Schema.String
}) {}

/** Literal text a template may not hold: what Windows refuses in a name, a backslash, control characters. */
const REFUSED_TEXT = /[<>:"\\|?*\u0000-\u001f\u007f]/u

const reject = (template: string, reason: string) => Result.fail(new PathTemplateRejected({ template, reason }))

/** `{{` and `}}` are a literal brace; `{name}` a field; any other brace is unbalanced. */
const parseSegment = (template: string, text: string): Result.Result<TemplateSegment, PathTemplateRejected> => {
  const parts: Array<TemplatePart> = []
  let literal = ""
  let index = 0
  while (index < text.length) {
    const char = text[index]
    const next = text[index + 1]
    if ((char === "{" && next === "{") || (char === "}" && next === "}")) {
      literal += char
      index += 2
      continue
    }
    if (char === "}") return reject(template, "unbalanced brace: a '}' closes no field (write '}}' for a literal brace)")
    if (char !== "{") {
      literal += char
      index += 1
      continue
    }
    const end = text.indexOf("}", index + 1)
    if (end === -1) return reject(template, "unbalanced brace: a '{' is never closed (write '{{' for a literal brace)")
    const name = text.slice(index + 1, end)
    if (name.includes("{")) return reject(template, "unbalanced brace: a '{' opens inside a field")
    if (!isTemplateField(name)) return reject(template, `unknown field {${name}}`)
    if (literal !== "") parts.push({ _tag: "Text", text: literal })
    literal = ""
    parts.push({ _tag: "Field", field: name })
    index = end + 1
  }
  if (literal !== "") parts.push({ _tag: "Text", text: literal })
  return Result.succeed(parts)
}

const isDotsOnly = (segment: string): boolean => /^\.+$/u.test(segment.trim())

/** The template parsed, or the first reason it is refused. */
export const parsePathTemplate = (template: string): Result.Result<PathTemplate, PathTemplateRejected> => {
  if (template.trim() === "") return reject(template, "the template is empty")
  if (template.length > MAX_TEMPLATE_LENGTH) return reject(template, `longer than ${MAX_TEMPLATE_LENGTH} characters`)
  if (template.startsWith("/") || template.startsWith("~") || /^[A-Za-z]:/u.test(template))
    return reject(template, "an absolute path: the template is relative to the destination")
  const refused = REFUSED_TEXT.exec(template.replace(/\{[^{}]*\}/gu, ""))
  if (refused !== null) return reject(template, `the character ${JSON.stringify(refused[0])} is not allowed in a file or folder name`)
  const texts = template.split("/")
  if (texts.length > MAX_TEMPLATE_DEPTH) return reject(template, `deeper than ${MAX_TEMPLATE_DEPTH} folders`)
  const segments: Array<TemplateSegment> = []
  for (const text of texts) {
    if (text === "") return reject(template, "an empty folder name ('//' or a trailing '/')")
    if (isDotsOnly(text)) return reject(template, "a '.' or '..' folder: the template may not leave the destination")
    const segment = parseSegment(template, text)
    if (Result.isFailure(segment)) return Result.fail(segment.failure)
    segments.push(segment.success)
  }
  return Result.succeed({ source: template, segments })
}
