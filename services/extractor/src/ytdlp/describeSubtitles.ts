// Extension: the subtitle languages yt-dlp found for a media, a person's tracks first and the automatic ones marked.
import { LANGUAGE_PATTERN, type SubtitleTrack } from "@mds/shared/domain/media/SubtitleTrack"
import type { YtDlpEntry, YtDlpSubtitles } from "./YtDlpInfo.ts"

const tracksOf = (subtitles: YtDlpSubtitles | null | undefined, automatic: boolean): ReadonlyArray<SubtitleTrack> =>
  Object.entries(subtitles ?? {})
    // live_chat and the like are not subtitles; odd codes could not be named in a format id.
    .filter(([language, files]) => LANGUAGE_PATTERN.test(language) && (files ?? []).length > 0)
    .map(([language, files]) => ({
      language,
      name:
        (files ?? [])
          .map((file) => file.name)
          .find((name): name is string => typeof name === "string" && name.trim() !== "")
          ?.trim() ?? language,
      automatic
    }))

/** One track per language: a person's subtitles win over automatic captions of the same language. */
export const describeSubtitles = (entry: YtDlpEntry): ReadonlyArray<SubtitleTrack> => {
  const manual = tracksOf(entry.subtitles, false)
  const automatic = tracksOf(entry.automatic_captions, true).filter((track) => !manual.some((m) => m.language === track.language))
  return [...manual, ...automatic].sort((a, b) => Number(a.automatic) - Number(b.automatic) || a.language.localeCompare(b.language))
}
