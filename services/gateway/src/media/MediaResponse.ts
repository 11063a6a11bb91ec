// The /v1 shape of resolved media: the public fields of a MediaResolved event, nothing internal.
import type { Media } from "@mds/shared/api/Responses"
import { liveStatusOf } from "@mds/shared/domain/media/LiveStatus"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"

/** The entries of a playlist shown by one answer (extension). */
export interface EntryPage {
  readonly offset: number
  readonly limit: number
}

const DEFAULT_PAGE: EntryPage = { offset: 0, limit: 50 }

const playlistFields = (media: MediaResolved, page: EntryPage) => {
  if (media.entries === undefined) return {}
  const end = page.offset + page.limit
  return {
    entry_count: media.entries.length,
    entries: media.entries.slice(page.offset, end).map((entry) => ({
      id: entry.id,
      url: entry.url,
      title: entry.title,
      duration: entry.duration === null ? null : Math.round(entry.duration),
      extractor_key: entry.extractorKey ?? null,
      extractor_id: entry.extractorId ?? null,
      published_at: entry.publishedAt === undefined ? null : new Date(entry.publishedAt).toISOString()
    })),
    next_offset: end < media.entries.length ? end : null
  }
}

export const toMediaResponse = (media: MediaResolved, page: EntryPage = DEFAULT_PAGE): Media => ({
  id: media.mediaId,
  platform: media.platform,
  type: media.type,
  title: media.title,
  thumbnail: media.thumbnail,
  duration: media.duration,
  author: { name: media.author.name, username: media.author.username },
  formats: media.formats.map((format) => ({
    id: format.id,
    type: format.type,
    quality: format.quality,
    container: format.container
  })),
  ...(media.subtitles === undefined
    ? {}
    : { subtitles: media.subtitles.map((t) => ({ language: t.language, name: t.name, automatic: t.automatic })) }),
  live_status: liveStatusOf(media),
  ...(media.releaseAt === undefined || liveStatusOf(media) !== "is_upcoming"
    ? {}
    : { release_at: new Date(media.releaseAt).toISOString() }),
  ...playlistFields(media, page)
})
