// The Download tab's choices: the media's formats, a clip, and the output presets POST /v1/media/download takes.
import type { Media } from "@mds/shared/api/Responses"
import { formatByteSize } from "@mds/shared/config/ByteSize"
import { type Html, html } from "../html/Html.ts"
import { type DownloadFormValues, emptyDownloadForm } from "../DownloadForm.ts"
import { type DestinationChoice, destinationFields } from "./DestinationField.ts"

type MediaFormat = Media["formats"][number]

const CODECS: ReadonlyArray<readonly [string, string]> = [
  ["", "As the site serves it"],
  ["h264", "H.264 (plays everywhere)"],
  ["vp9", "VP9 (smaller)"],
  ["av1", "AV1 (smallest)"],
  ["any", "The site's best, any codec"]
]
const CONTAINERS: ReadonlyArray<readonly [string, string]> = [
  ["", "mp4"],
  ["webm", "webm"],
  ["mkv", "mkv"]
]
const BITRATES: ReadonlyArray<readonly [string, string]> = [
  ["", "Default"],
  ...["64", "96", "128", "192", "256", "320"].map((k) => [k, `${k} kbit/s`] as const)
]

const option = ([value, label]: readonly [string, string], chosen: string) =>
  html`<option value="${value}"${value === chosen ? html` selected` : ""}>${label}</option>`

const checkbox = (name: string, label: string, on: boolean, value = "1", id = `download-${name}`) =>
  html`<label class="check" for="${id}"><input type="checkbox" id="${id}" name="${name}" value="${value}"${on ? html` checked` : ""}> ${label}</label>`

/** Size when the format says (a future resolve may carry it); absent, nothing is shown. */
const sizeOf = (format: MediaFormat): string => {
  const size = (format as MediaFormat & { readonly size_bytes?: unknown }).size_bytes
  return typeof size === "number" && size > 0 ? ` · about ${formatByteSize(size)}` : ""
}

/** The format a page proposes: the one chosen before, else the first video format, else the first. */
export const chosenFormat = (formats: ReadonlyArray<MediaFormat>, values: DownloadFormValues): string =>
  formats.find((f) => f.id === values.format)?.id ?? formats.find((f) => f.type === "video")?.id ?? formats[0]?.id ?? ""

/** One radio per format, video first then audio, as the API lists them. */
export const formatChoice = (formats: ReadonlyArray<MediaFormat>, values: DownloadFormValues): Html => {
  const chosen = chosenFormat(formats, values)
  const group = (type: MediaFormat["type"], legend: string) => {
    const of = formats.filter((f) => f.type === type)
    return of.length === 0
      ? ""
      : html`<fieldset class="formats"><legend>${legend}</legend>${of.map(
          (f) =>
            html`<label class="check format" for="format-${f.id}"><input type="radio" id="format-${f.id}" name="format" value="${f.id}"${
              f.id === chosen ? html` checked` : ""
            } required> <span>${f.quality}</span> <span class="muted">${f.container}${sizeOf(f)} · <code>${f.id}</code></span></label>`
        )}</fieldset>`
  }
  return html`${group("video", "Video")}${group("audio", "Audio only")}`
}

/** For a playlist's batch: one format for every entry (the format grammar's ids the playlist lists). */
export const formatSelect = (formats: ReadonlyArray<MediaFormat>, values: DownloadFormValues): Html => {
  const chosen = chosenFormat(formats, values)
  return html`<label for="batch-format">Format of every entry</label>
<select id="batch-format" name="format">${formats.map((f) => option([f.id, `${f.quality} ${f.container} (${f.id})`], chosen))}</select>`
}

const anyOptionSet = (values: DownloadFormValues) =>
  JSON.stringify({ ...values, format: "" }) !== JSON.stringify({ ...emptyDownloadForm, format: "" })

/**
 * Clip, codec, container, bitrate, tags, cover, subtitles and the destination (when the project has one): closed until
 * used, as most downloads need none.
 */
export const downloadOptions = (
  values: DownloadFormValues,
  subtitles: Media["subtitles"],
  destinations: ReadonlyArray<DestinationChoice>
): Html =>
  html`<details class="options"${anyOptionSet(values) ? html` open` : ""}>
<summary>Clip and output options</summary>
<fieldset>
<legend>Clip (optional): seconds or positions such as 1:30</legend>
<div class="pair">
<span><label for="download-clip-start">Start</label>
<input id="download-clip-start" name="clip_start" inputmode="decimal" placeholder="0:00" maxlength="16" value="${values.clip_start}" autocomplete="off"></span>
<span><label for="download-clip-end">End</label>
<input id="download-clip-end" name="clip_end" inputmode="decimal" placeholder="0:30" maxlength="16" value="${values.clip_end}" autocomplete="off"></span>
</div>
${checkbox("clip_precise", "Cut exactly at these times (re-encodes: slower)", values.clip_precise)}
</fieldset>
<fieldset>
<legend>Output</legend>
<label for="download-video-codec">Video codec</label>
<select id="download-video-codec" name="video_codec">${CODECS.map((c) => option(c, values.video_codec))}</select>
<label for="download-container">Video container</label>
<select id="download-container" name="container">${CONTAINERS.map((c) => option(c, values.container))}</select>
<label for="download-audio-bitrate">Audio bitrate (mp3, m4a)</label>
<select id="download-audio-bitrate" name="audio_bitrate">${BITRATES.map((b) => option(b, values.audio_bitrate))}</select>
${checkbox("mute", "Video without sound", values.mute)}
${checkbox("embed_metadata", "Write the title, artist and date into the file", values.embed_metadata)}
${checkbox("embed_thumbnail", "Embed the thumbnail as cover art", values.embed_thumbnail)}
</fieldset>${
    subtitles === undefined || subtitles.length === 0
      ? ""
      : html`
<fieldset>
<legend>Subtitles to embed (video)</legend>
${subtitles.map((track) =>
  checkbox(
    "subtitles",
    `${track.name}${track.automatic ? " (automatic)" : ""}`,
    values.subtitles.includes(track.language),
    track.language,
    `download-subtitles-${track.language}`
  )
)}
</fieldset>`
  }${
    destinations.length === 0
      ? ""
      : html`
<fieldset>
<legend>Deliver into a destination of the project</legend>
${destinationFields("download", destinations, values)}
</fieldset>`
  }
</details>`
