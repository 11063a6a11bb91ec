// Extension: the yt-dlp flags that embed subtitle tracks in a video, or fetch one language as a WebVTT file.
import { baseFlags, type YtDlpFlags } from "./YtDlpFlags.ts"

export const SUBTITLE_TITLE_MARKER = "[mds-subtitle-title]"

/**
 * A person's subtitles of a language win over automatic captions of the same language (yt-dlp's own rule).
 * --embed-subs converts them for the container (mov_text in mp4); mkv and webm hold WebVTT as it is.
 */
export const embedSubtitleFlags = (languages: ReadonlyArray<string> | undefined): YtDlpFlags =>
  languages === undefined || languages.length === 0
    ? {}
    : { writeSubs: true, writeAutoSubs: true, subLangs: languages.join(","), embedSubs: true }

/** Only the subtitle file, as WebVTT, named media.<language>.vtt in the job's directory; the title is printed. */
export const subtitleFileFlags = (language: string, workDir: string, proxyUrl: string, ffmpegPath: string): YtDlpFlags => ({
  ...baseFlags(proxyUrl, ffmpegPath),
  skipDownload: true,
  // --print alone would make the run a simulation that writes nothing.
  simulate: false,
  writeSubs: true,
  writeAutoSubs: true,
  subLangs: language,
  subFormat: "vtt/best",
  convertSubs: "vtt",
  paths: workDir,
  output: "media.%(ext)s",
  print: [`video:${SUBTITLE_TITLE_MARKER} %(title)j`],
  restrictFilenames: true
})

/** The title printed by a subtitle run, or null for other lines. */
export const parseSubtitleTitle = (line: string): string | null => {
  const at = line.indexOf(SUBTITLE_TITLE_MARKER)
  if (at < 0) return null
  try {
    const title: unknown = JSON.parse(line.slice(at + SUBTITLE_TITLE_MARKER.length).trim())
    return typeof title === "string" ? title : null
  } catch {
    return null
  }
}
