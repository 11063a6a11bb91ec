// Where a job's file lands in a destination: its template rendered with the media's fields, every name made safe,
// cut to the limits, always relative and inside the destination. Sidecars share the media file's stem.
import type { PathTemplate, TemplateSegment } from "./PathTemplate.ts"
import { replaceForbidden, safeName, utf8Length } from "./PathSegment.ts"
import { MISSING_FIELD, type TemplateValues } from "./TemplateFields.ts"

/** A folder's name, at most (ext4 and NTFS take 255; the rest is room for a share's own prefix). */
export const MAX_FOLDER_BYTES = 200
/** The file's stem, at most: the longest sidecar suffix (`.info.json`, `.<lang>.vtt`, `-thumb.jpg`) still fits 255. */
export const MAX_STEM_BYTES = 180
/** The extension, at most, letters and digits only. */
export const MAX_EXT_BYTES = 10
/** The whole relative path, at most. */
export const MAX_PATH_BYTES = 512

export interface DeliveryPath {
  /** The folders, outermost first (may be none). */
  readonly folders: ReadonlyArray<string>
  /** The file's name without its extension: sidecars are `<stem>.nfo`, `<stem>.info.json`, … */
  readonly stem: string
  readonly ext: string
  /** `folders/stem.ext`, with `/` between names. */
  readonly path: string
}

const fieldText = (values: TemplateValues, field: keyof TemplateValues): string => {
  const value = values[field]
  if (value === undefined || value === null || value === "") return MISSING_FIELD
  return replaceForbidden(String(value))
}

const renderSegment = (segment: TemplateSegment, values: TemplateValues): string =>
  segment.map((part) => (part._tag === "Text" ? part.text : fieldText(values, part.field))).join("")

/** The extension as a file name may end: letters and digits, lower case; `bin` when the media names none usable. */
export const safeExt = (ext: string | number | null | undefined): string => {
  const cleaned = String(ext ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9]/gu, "")
  return cleaned === "" ? "bin" : cleaned.slice(0, MAX_EXT_BYTES)
}

/**
 * The last segment's stem: the rendered name without the trailing `.<ext>` when the template ends with `.{ext}`;
 * a template that does not is given the extension after what it names.
 */
const stemOf = (segment: TemplateSegment, values: TemplateValues): string => {
  const last = segment.at(-1)
  const beforeLast = segment.at(-2)
  const endsWithExt = last?._tag === "Field" && last.field === "ext" && beforeLast?._tag === "Text" && beforeLast.text.endsWith(".")
  if (!endsWithExt) return renderSegment(segment, values)
  const withoutExt = [...segment.slice(0, -2), { _tag: "Text" as const, text: beforeLast.text.slice(0, -1) }]
  return renderSegment(withoutExt, values)
}

const joinPath = (folders: ReadonlyArray<string>, fileName: string): string => [...folders, fileName].join("/")

/** The template rendered for one media: relative, no `..`, every name safe, within every limit. */
export const renderDeliveryPath = (template: PathTemplate, values: TemplateValues): DeliveryPath => {
  const ext = safeExt(values.ext)
  const folderSegments = template.segments.slice(0, -1)
  const fileSegment = template.segments.at(-1) ?? []
  const stem = safeName(stemOf(fileSegment, values), MAX_STEM_BYTES)
  let folders = folderSegments.map((segment) => safeName(renderSegment(segment, values), MAX_FOLDER_BYTES))
  const fileName = `${stem}.${ext}`
  if (utf8Length(joinPath(folders, fileName)) > MAX_PATH_BYTES) {
    // Too long as a whole: the folders share what the file's name leaves, equally.
    const budget = MAX_PATH_BYTES - utf8Length(fileName) - folders.length
    const each = Math.floor(budget / Math.max(folders.length, 1))
    folders = folders.map((folder) => safeName(folder, each))
  }
  return { folders, stem, ext, path: joinPath(folders, fileName) }
}

/** A sidecar's path beside the media: the same folders and stem, its own suffix (`.nfo`, `.info.json`, `.en.vtt`). */
export const sidecarPath = (media: DeliveryPath, suffix: string): string => joinPath(media.folders, `${media.stem}${suffix}`)

/** A file in the media's folder (`tvshow.nfo`, `poster.jpg`), or at the destination's root when there is none. */
export const folderFilePath = (media: DeliveryPath, name: string): string => joinPath(media.folders, name)
