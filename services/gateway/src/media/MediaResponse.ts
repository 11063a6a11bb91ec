// The /v1 shape of resolved media: the public fields of a MediaResolved event, nothing internal.
import type { Media } from "@mds/shared/api/Responses"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"

export const toMediaResponse = (media: MediaResolved): Media => ({
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
  ...(media.subtitles === undefined ? {} : { subtitles: media.subtitles.map((t) => ({ language: t.language, name: t.name, automatic: t.automatic })) })
})
