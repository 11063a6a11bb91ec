// The yt-dlp arguments of a job's media run: the download itself, the project's cookies, the clip, the output preset
// and the subtitles to embed; and what yt-dlp is pointed at (the page, or the resolve's stored info).
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import type { FormatSpec } from "@mds/shared/domain/media/FormatId"
import { loadInfoFlags } from "../ytdlp/LoadInfoFlags.ts"
import { presetFlags } from "../ytdlp/PresetFlags.ts"
import { sectionFlags } from "../ytdlp/SectionFlags.ts"
import { embedSubtitleFlags } from "../ytdlp/SubtitleFlags.ts"
import { downloadFlags, type YtDlpFlags } from "../ytdlp/YtDlpFlags.ts"
import { clipStartsOf, type FetchOptions, type MediaSource } from "./FetchOptions.ts"

/** A clip whose source holds only its fragments is fetched whole and cut afterwards (ClipCut), not by yt-dlp's ffmpeg. */
export const mediaRunFlags = (
  spec: FormatSpec,
  command: DownloadMedia,
  options: FetchOptions,
  source: MediaSource,
  proxyUrl: string,
  ffmpegPath: string,
  cookieFlags: YtDlpFlags
): YtDlpFlags => ({
  ...downloadFlags(spec, options.workDir, proxyUrl, ffmpegPath, options.concurrentFragments),
  ...cookieFlags,
  ...(clipStartsOf(source) === null ? sectionFlags(command.options?.section) : {}),
  ...presetFlags(spec, command.options),
  ...(spec.kind === "video" ? embedSubtitleFlags(command.options?.subtitles) : {})
})

/** The page's URL; or no URL and the stored info to load, which already holds the formats a resolve found. */
export const sourceArguments = (source: MediaSource): { readonly url: string; readonly flags: YtDlpFlags } =>
  source._tag === "Page" ? { url: source.url.href, flags: {} } : { url: "", flags: loadInfoFlags(source.infoPath) }
