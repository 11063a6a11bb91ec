// Extension: what a run of a job with a destination adds to its stored file: where the file goes (the path template
// rendered with the media's fields) and its sidecars, written from the media's info and stored beside the artifact,
// so that any deliverer can copy them (DeliverJob) without the run's directory.
import { copyFile, writeFile } from "node:fs/promises"
import { basename, extname, join } from "node:path"
import { Context, Effect, Layer, Result } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { type DeliveryPath, renderDeliveryPath } from "@mds/shared/domain/delivery/DeliveryPath"
import { episodeNfo, uniqueIdType } from "@mds/shared/domain/delivery/EpisodeNfo"
import { infoJsonSidecar } from "@mds/shared/domain/delivery/InfoJsonSidecar"
import { type LibraryEntry, libraryEntryOf } from "@mds/shared/domain/delivery/LibraryEntry"
import { DEFAULT_PATH_TEMPLATE, type PathTemplate, parsePathTemplate } from "@mds/shared/domain/delivery/PathTemplate"
import { infoJsonPath, nfoPath, posterPath, subtitlePath, thumbnailPath, tvShowNfoPath } from "@mds/shared/domain/delivery/Sidecars"
import { tvShowNfo } from "@mds/shared/domain/delivery/TvShowNfo"
import { templateValuesOf } from "@mds/shared/domain/delivery/TemplateFields"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import type { DeliveredSidecar } from "@mds/shared/domain/job/JobDelivery"
import type { JobArtifact } from "@mds/shared/domain/job/JobEvent"
import type { DownloadedFile } from "../ytdlp/ResultLine.ts"
import { jobFailure } from "./DownloadFailed.ts"

export interface DeliveryFilesOfRun {
  readonly path: string
  readonly sidecars: ReadonlyArray<DeliveredSidecar>
}

type Info = Readonly<Record<string, unknown>>

/** Files yt-dlp wrote beside the media and named in the info (`filepath` of a written thumbnail or subtitle). */
const writtenPath = (entry: unknown): string | null => {
  const filepath = (entry as { readonly filepath?: unknown } | null)?.filepath
  return typeof filepath === "string" ? filepath : null
}

const thumbnailFile = (info: Info): string | null => {
  const thumbnails = Array.isArray(info.thumbnails) ? info.thumbnails : []
  return thumbnails.map(writtenPath).findLast((path) => path !== null) ?? null
}

const subtitleFiles = (info: Info): ReadonlyArray<{ readonly language: string; readonly path: string }> =>
  Object.entries((info.requested_subtitles as Record<string, unknown> | null | undefined) ?? {}).flatMap(([language, entry]) => {
    const path = writtenPath(entry)
    return path === null ? [] : [{ language, path }]
  })

const studioOf = (entry: LibraryEntry | null): { studio?: string } => {
  const studio = entry?.channel ?? entry?.uploader
  return studio === undefined ? {} : { studio }
}

/** Checked when the job was queued; a template a later version refuses falls back to the default. */
const templateOf = (text: string): PathTemplate => {
  for (const candidate of [text, DEFAULT_PATH_TEMPLATE]) {
    const parsed = parsePathTemplate(candidate)
    if (Result.isSuccess(parsed)) return parsed.success
  }
  throw new Error("the default path template does not parse")
}

const renderedPath = (pathTemplate: string, info: Info, artifact: JobArtifact): DeliveryPath =>
  renderDeliveryPath(templateOf(pathTemplate), { ...templateValuesOf(info), ext: extname(artifact.filename).slice(1) })

export class DeliveryFiles extends Context.Service<DeliveryFiles>()("mds/extractor/DeliveryFiles", {
  make: Effect.gen(function* () {
    const artifacts = yield* ArtifactStore

    /** Stores one sidecar under the job's key and says where it goes; none for a job without a destination. */
    const prepare = Effect.fn("DeliveryFiles.prepare")(
      function* (command: DownloadMedia, file: DownloadedFile, artifact: JobArtifact, workDir: string) {
        const order = command.options?.delivery
        if (order === undefined) return undefined
        const info: Info = file.info ?? { id: command.jobId, title: file.title ?? "media" }
        const media = renderedPath(order.pathTemplate, info, artifact)
        const keyOf = (name: string) => `jobs/${command.projectId}/${command.jobId}/sidecars/${name}`
        const store = (localPath: string, name: string, path: string, contentType: string) =>
          artifacts.putFile(keyOf(name), localPath, contentType).pipe(Effect.as<DeliveredSidecar>({ key: keyOf(name), path, contentType }))
        const written = (name: string, text: string) =>
          Effect.promise(() => writeFile(join(workDir, name), text, "utf8")).pipe(Effect.as(join(workDir, name)))
        const sidecars: Array<DeliveredSidecar> = []
        const thumbnail = thumbnailFile(info)
        const thumbnailName = thumbnail === null ? null : basename(thumbnailPath(media, extname(thumbnail).slice(1)))
        const show = order.library
        // The store takes a file over (moves it): the show's poster is a copy of the thumbnail, taken before that.
        const posterCopy =
          show !== undefined && order.sidecars.includes("nfo") && thumbnail !== null
            ? yield* Effect.promise(() => copyFile(thumbnail, join(workDir, "sidecar.poster"))).pipe(
                Effect.as(join(workDir, "sidecar.poster"))
              )
            : null
        if (order.sidecars.includes("thumbnail") && thumbnail !== null) {
          sidecars.push(yield* store(thumbnail, "thumbnail", thumbnailPath(media, extname(thumbnail).slice(1)), "image/jpeg"))
        }
        if (order.sidecars.includes("info_json")) {
          sidecars.push(
            yield* store(yield* written("sidecar.info.json", infoJsonSidecar(info)), "info.json", infoJsonPath(media), "application/json")
          )
        }
        const entry = libraryEntryOf(info)
        if (order.sidecars.includes("nfo") && entry !== null) {
          const thumb = order.sidecars.includes("thumbnail") ? thumbnailName : null
          // A subscription's entry is a numbered episode of its show (EpisodeNumber.ts), titled as the show is.
          const episode = show === undefined ? entry : { ...entry, playlist_title: show.title }
          sidecars.push(
            yield* store(
              yield* written("sidecar.nfo", episodeNfo(episode, thumb, show !== undefined)),
              "episode.nfo",
              nfoPath(media),
              "text/xml"
            )
          )
        }
        if (order.sidecars.includes("nfo") && show !== undefined) {
          // The show's files, once per subscription folder: the deliverer writes nothing over an object already there.
          // The poster is the entry's own thumbnail (the playlist's image is not fetched outside yt-dlp's egress).
          const poster = thumbnail === null ? null : posterPath(media, extname(thumbnail).slice(1))
          const showNfo = tvShowNfo({
            title: show.title,
            ...studioOf(entry),
            ...(show.playlistId === undefined ? {} : { id: show.playlistId }),
            idType: entry === null ? "mds" : uniqueIdType(entry),
            posterFile: poster === null ? null : basename(poster)
          })
          const showFile = (sidecar: DeliveredSidecar): DeliveredSidecar => ({ ...sidecar, show: true })
          if (posterCopy !== null && poster !== null) sidecars.push(showFile(yield* store(posterCopy, "poster", poster, "image/jpeg")))
          sidecars.push(
            showFile(yield* store(yield* written("sidecar.tvshow.nfo", showNfo), "tvshow.nfo", tvShowNfoPath(media), "text/xml"))
          )
        }
        if (order.sidecars.includes("subtitles")) {
          for (const subtitle of subtitleFiles(info)) {
            const ext = extname(subtitle.path).slice(1)
            sidecars.push(
              yield* store(subtitle.path, `subtitles.${subtitle.language}.${ext}`, subtitlePath(media, subtitle.language, ext), "text/vtt")
            )
          }
        }
        return { path: media.path, sidecars } satisfies DeliveryFilesOfRun
      },
      Effect.mapError((error) => jobFailure("internal_error", `storing the delivery's sidecars failed: ${error.message}`))
    )

    return { prepare }
  })
}) {
  static readonly layer = Layer.effect(DeliveryFiles, DeliveryFiles.make)
}
