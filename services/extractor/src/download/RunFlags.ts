// The yt-dlp arguments of a job's media run: the download itself, the project's cookies, the clip, the output preset,
// the subtitles to embed and what a delivery needs (the whole info, sidecar files); and what yt-dlp is pointed at.
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import type { FormatSpec } from "@mds/shared/domain/media/FormatId"
import { deliveryFlags } from "../ytdlp/DeliveryFlags.ts"
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
  ...(spec.kind === "video" ? embedSubtitleFlags(command.options?.subtitles) : {}),
  ...deliveryFlags(command.options?.delivery, spec, command.options)
})

/** The page's URL; or no URL and the stored info to load, which already holds the formats a resolve found. */
export const sourceArguments = (source: MediaSource): { readonly url: string; readonly flags: YtDlpFlags } =>
  source._tag === "Page" ? { url: source.url.href, flags: {} } : { url: "", flags: loadInfoFlags(source.infoPath) }
