// The grammar of download format ids (video_best, video_720p, audio_best, audio_mp3, audio_m4a).
import { Option } from "effect"

export type FormatSpec =
  | { readonly kind: "video"; readonly height: number | null }
  | { readonly kind: "audio"; readonly codec: "best" | "mp3" | "m4a" }

const VIDEO_HEIGHT = /^video_([1-9][0-9]{1,3})p$/

export const parseFormatId = (id: string): Option.Option<FormatSpec> => {
  if (id === "video_best") return Option.some({ kind: "video", height: null })
  if (id === "audio_best") return Option.some({ kind: "audio", codec: "best" })
  if (id === "audio_mp3") return Option.some({ kind: "audio", codec: "mp3" })
  if (id === "audio_m4a") return Option.some({ kind: "audio", codec: "m4a" })
  const match = VIDEO_HEIGHT.exec(id)
  if (match?.[1] !== undefined) return Option.some({ kind: "video", height: Number(match[1]) })
  return Option.none()
}

export const videoFormatId = (height: number): string => `video_${height}p`
