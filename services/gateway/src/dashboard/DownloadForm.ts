// The Download tab's format, clip, preset and destination fields as typed, and the same as the /v1 download and batch
// bodies spell them.
import { field, fields } from "./DashboardForms.ts"
import { destinationBodyOf, type DestinationFormValues } from "./DestinationForm.ts"

/** The form exactly as the user left it, so a refused form comes back filled in. */
export interface DownloadFormValues extends DestinationFormValues {
  readonly format: string
  readonly clip_start: string
  readonly clip_end: string
  readonly clip_precise: boolean
  readonly video_codec: string
  readonly container: string
  readonly audio_bitrate: string
  readonly mute: boolean
  readonly embed_metadata: boolean
  readonly embed_thumbnail: boolean
  readonly subtitles: ReadonlyArray<string>
}

export const emptyDownloadForm: DownloadFormValues = {
  format: "",
  clip_start: "",
  clip_end: "",
  clip_precise: false,
  video_codec: "",
  container: "",
  audio_bitrate: "",
  mute: false,
  embed_metadata: false,
  embed_thumbnail: false,
  subtitles: [],
  destination: "",
  path: ""
}

const checked = (body: unknown, name: string) => field(body, name) !== ""

export const downloadFormValues = (body: unknown): DownloadFormValues => ({
  format: field(body, "format"),
  clip_start: field(body, "clip_start").trim(),
  clip_end: field(body, "clip_end").trim(),
  clip_precise: checked(body, "clip_precise"),
  video_codec: field(body, "video_codec"),
  container: field(body, "container"),
  audio_bitrate: field(body, "audio_bitrate").trim(),
  mute: checked(body, "mute"),
  embed_metadata: checked(body, "embed_metadata"),
  embed_thumbnail: checked(body, "embed_thumbnail"),
  subtitles: fields(body, "subtitles"),
  destination: field(body, "destination").trim(),
  path: field(body, "path").trim()
})

/**
 * Seconds, or a position as a player shows it (1:30, 1:02:03.5); anything else stays text, so the API's schema names
 * the field that is wrong in its own words (one validation, the API's).
 */
export const secondsOf = (raw: string): number | string => {
  if (!/^(\d{1,6}:){0,2}\d{1,6}(\.\d{1,3})?$/.test(raw)) return raw
  return raw.split(":").reduce((total, part) => total * 60 + Number(part), 0)
}

const given = <V>(name: string, value: V, present: boolean): Record<string, V> => (present ? { [name]: value } : {})

/** The opt-in fields of POST /v1/media/download and POST /v1/batches, only those the user set. */
export const downloadExtensionsOf = (values: DownloadFormValues): Record<string, unknown> => ({
  ...given(
    "section",
    { start: secondsOf(values.clip_start), end: secondsOf(values.clip_end), ...given("precise", true, values.clip_precise) },
    values.clip_start !== "" || values.clip_end !== ""
  ),
  ...given("video_codec", values.video_codec, values.video_codec !== ""),
  ...given("container", values.container, values.container !== ""),
  ...given(
    "audio_bitrate",
    /^\d{1,4}$/.test(values.audio_bitrate) ? Number(values.audio_bitrate) : values.audio_bitrate,
    values.audio_bitrate !== ""
  ),
  ...given("mute", true, values.mute),
  ...given("embed_metadata", true, values.embed_metadata),
  ...given("embed_thumbnail", true, values.embed_thumbnail),
  ...given("subtitles", values.subtitles, values.subtitles.length > 0),
  ...destinationBodyOf(values)
})

/** The body of POST /v1/media/download for a resolved media. */
export const downloadBodyOf = (mediaId: string, values: DownloadFormValues) => ({
  media_id: mediaId,
  format: values.format,
  ...downloadExtensionsOf(values)
})

/** The body of POST /v1/batches: the chosen entries of a resolved playlist (none chosen: every entry). */
export const batchBodyOf = (mediaId: string, entries: ReadonlyArray<string> | null, values: DownloadFormValues) => ({
  media_id: mediaId,
  format: values.format,
  ...(entries === null ? {} : { entries }),
  ...downloadExtensionsOf(values)
})
