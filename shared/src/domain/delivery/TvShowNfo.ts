// A subscription's show as a media library sees it: `tvshow.nfo` in the subscription's folder, named after the
// channel or playlist, with the poster written beside it.
import { type NfoElement, nfoDocument } from "./NfoXml.ts"

export interface LibraryShow {
  /** The subscription's name as the client gave it, else the playlist's or channel's title. */
  readonly title: string
  readonly plot?: string
  readonly studio?: string
  /** The platform's id of the channel or playlist, and the platform's name (`youtube`). */
  readonly id?: string
  readonly idType: string
  readonly posterFile: string | null
}

const text = (name: string, value: string | undefined | null): NfoElement | null =>
  value === undefined || value === null || value === "" ? null : { name, text: value }

export const tvShowNfo = (show: LibraryShow): string =>
  nfoDocument("tvshow", [
    text("title", show.title),
    text("plot", show.plot),
    text("studio", show.studio),
    show.id === undefined ? null : { name: "uniqueid", text: show.id, attributes: { type: show.idType, default: "true" } },
    show.posterFile === null ? null : { name: "thumb", text: show.posterFile, attributes: { aspect: "poster" } }
  ])
