// The fields a delivery path template may name: yt-dlp's output-template fields, by their yt-dlp names, read from the
// media's info (what yt-dlp wrote for the downloaded entry). A field the media lacks renders as yt-dlp renders it: NA.

export const TEMPLATE_FIELDS = [
  "id",
  "display_id",
  "title",
  "fulltitle",
  "alt_title",
  "uploader",
  "uploader_id",
  "channel",
  "channel_id",
  "creator",
  "upload_date",
  "release_date",
  "timestamp",
  "duration",
  "ext",
  "format_id",
  "resolution",
  "height",
  "width",
  "language",
  "extractor",
  "extractor_key",
  "webpage_url_domain",
  "playlist",
  "playlist_id",
  "playlist_title",
  "playlist_index",
  "playlist_count",
  "series",
  "season",
  "season_number",
  "episode",
  "episode_number",
  "track",
  "track_number",
  "artist",
  "album"
] as const

export type TemplateField = (typeof TEMPLATE_FIELDS)[number]

const known: ReadonlySet<string> = new Set(TEMPLATE_FIELDS)

export const isTemplateField = (name: string): name is TemplateField => known.has(name)

/** A field's value for one delivery: text or a number from the info; null or absent when the media lacks it. */
export type TemplateValues = Readonly<Partial<Record<TemplateField, string | number | null>>>

/** What yt-dlp writes for a field the media lacks. */
export const MISSING_FIELD = "NA"

/** The values of the known fields found in an info object (yt-dlp's JSON); anything else in it is ignored. */
export const templateValuesOf = (info: Readonly<Record<string, unknown>>): TemplateValues => {
  const values: Partial<Record<TemplateField, string | number>> = {}
  for (const field of TEMPLATE_FIELDS) {
    const value = info[field]
    if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) values[field] = value
  }
  return values
}
