// Names and types the file a download produced: a safe file name from the title, and its MIME type.

const MIME_BY_EXTENSION: Record<string, string> = {
  mp4: "video/mp4",
  m4v: "video/mp4",
  mkv: "video/x-matroska",
  mov: "video/quicktime",
  webm: "video/webm",
  m4a: "audio/mp4",
  mp3: "audio/mpeg",
  aac: "audio/aac",
  opus: "audio/ogg",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  flac: "audio/flac",
  wav: "audio/wav",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  vtt: "text/vtt"
}

export const mimeTypeOf = (extension: string, kind: "video" | "audio"): string => {
  const ext = extension.toLowerCase()
  if (ext === "webm" && kind === "audio") return "audio/webm"
  return MIME_BY_EXTENSION[ext] ?? "application/octet-stream"
}

const MAX_STEM_LENGTH = 120

/**
 * Control characters, path separators and characters Windows refuses become spaces; leading dots go
 * (no hidden files); the stem is bounded so the name fits every filesystem.
 */
export const safeFileName = (title: string, extension: string): string => {
  const ext =
    extension
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "")
      .slice(0, 8) || "bin"
  const stem = [
    ...title
      .normalize("NFC")
      .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, " ")
      .replace(/[/\\:*?"<>|]/g, " ")
      .replace(/\s+/g, " ")
      .trim()
      .replace(/^[.\s]+/, "")
  ]
    .slice(0, MAX_STEM_LENGTH)
    .join("")
    .replace(/[.\s]+$/, "")
  return `${stem === "" ? "media" : stem}.${ext}`
}
