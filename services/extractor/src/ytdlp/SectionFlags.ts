// Extension: the yt-dlp flags that download only a clip of the media (--download-sections, precise cuts on request).
import type { ClipSection } from "@mds/shared/domain/job/DownloadOptions"
import type { YtDlpFlags } from "./YtDlpFlags.ts"

/** Seconds as yt-dlp's time ranges read them: plain decimals, never exponents. */
const seconds = (value: number) => String(Number(value.toFixed(3)))

/**
 * yt-dlp downloads a section with ffmpeg (-ss/-t on the input). Without --force-keyframes-at-cuts it copies the
 * streams, so the cuts fall on keyframes; with it, ffmpeg re-encodes and the clip starts and ends where asked.
 */
export const sectionFlags = (section: ClipSection | undefined): YtDlpFlags => {
  if (section === undefined) return {}
  return {
    downloadSections: `*${seconds(section.start)}-${seconds(section.end)}`,
    ...(section.precise ? { forceKeyframesAtCuts: true } : {})
  }
}

/** How long the clip of a media of this duration lasts (the media's own duration without a section). */
export const clipDuration = (section: ClipSection | undefined, durationSeconds: number | null): number | null => {
  if (section === undefined) return durationSeconds
  const end = durationSeconds === null ? section.end : Math.min(section.end, durationSeconds)
  return Math.max(0, end - section.start)
}
