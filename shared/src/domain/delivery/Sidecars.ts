// The files a delivery may write beside the media, and the names they take: the media's stem with a suffix media
// libraries (Kodi, Jellyfin, Emby, Plex) read, so a sidecar is found and moved with its media.
import { Schema } from "effect"
import { type DeliveryPath, folderFilePath, safeExt, sidecarPath } from "./DeliveryPath.ts"

export const SIDECAR_KINDS = ["info_json", "thumbnail", "nfo", "subtitles"] as const
export const SidecarKind = Schema.Literals(SIDECAR_KINDS)
export type SidecarKind = typeof SidecarKind.Type

/** A request's sidecars: each kind at most once (uniqueItems in the OpenAPI document). */
export const Sidecars = Schema.Array(SidecarKind).check(
  Schema.isMaxLength(SIDECAR_KINDS.length),
  Schema.isUnique({ message: "must name each sidecar at most once" })
)

export const infoJsonPath = (media: DeliveryPath): string => sidecarPath(media, ".info.json")
export const nfoPath = (media: DeliveryPath): string => sidecarPath(media, ".nfo")
/** `<stem>-thumb.jpg`: the name Kodi reads and Jellyfin/Emby also take as the episode's image. */
export const thumbnailPath = (media: DeliveryPath, ext: string): string => sidecarPath(media, `-thumb.${safeExt(ext)}`)
/** `<stem>.<lang>.vtt`: the language tag players show; the language is a BCP 47 tag, already checked. */
export const subtitlePath = (media: DeliveryPath, language: string, ext: string): string =>
  sidecarPath(media, `.${language.replace(/[^A-Za-z0-9-]/gu, "_")}.${safeExt(ext)}`)
/**
 * A subscription's show: `tvshow.nfo` and `poster.jpg` in the subscription's folder, the rendered template's first
 * folder (`{uploader}/…` gives one show per channel; `{uploader}/{upload_date}/…` still one), or the root when none.
 */
const showFolder = (media: DeliveryPath): DeliveryPath => ({ ...media, folders: media.folders.slice(0, 1) })
export const tvShowNfoPath = (media: DeliveryPath): string => folderFilePath(showFolder(media), "tvshow.nfo")
export const posterPath = (media: DeliveryPath, ext: string): string => folderFilePath(showFolder(media), `poster.${safeExt(ext)}`)
