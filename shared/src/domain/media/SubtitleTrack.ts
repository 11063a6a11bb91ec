// Extension: a subtitle language a media offers (the format subtitles_<lang> delivers it as a WebVTT file, FormatId.ts).
import { Schema } from "effect"

/** BCP 47-like codes as platforms use them (en, pt-BR, zh-Hans); safe inside a format id and a file name. */
export const LANGUAGE_PATTERN = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,3}$/u

export const LanguageCode = Schema.String.check(
  Schema.isPattern(LANGUAGE_PATTERN, { message: "must be a language code such as en or pt-BR" })
)

export const SubtitleTrack = Schema.Struct({
  language: Schema.String,
  /** The platform's label, e.g. "English"; the code when it gives none. */
  name: Schema.String,
  /** Made by the platform's speech recognition, not by a person. */
  automatic: Schema.Boolean
})
export type SubtitleTrack = typeof SubtitleTrack.Type
