// Fetches a download link to a temp file and asks ffprobe what streams it holds, to check that artifacts are real media.
import { execFile } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"

const execFileAsync = promisify(execFile)

export interface FetchedFile {
  readonly status: number
  readonly headers: Headers
  readonly bytes: Buffer
}

export const fetchFile = async (url: string, method: "GET" | "HEAD" = "GET"): Promise<FetchedFile> => {
  const response = await fetch(url, { method, signal: AbortSignal.timeout(60_000) })
  const bytes = Buffer.from(await response.arrayBuffer())
  return { status: response.status, headers: response.headers, bytes }
}

export interface ProbedMedia {
  readonly codecTypes: ReadonlyArray<string>
  readonly codecNames: ReadonlyArray<string>
  readonly formatName: string
  readonly durationSeconds: number
  /** Overall bit rate in bit/s (0 when ffprobe does not say). */
  readonly bitRate: number
  /** The container's tags (title, artist, ...), keys lowercased. */
  readonly tags: Readonly<Record<string, string>>
  /** How many streams are embedded pictures (cover art, thumbnails). */
  readonly attachedPictures: number
}

export const probeBytes = async (bytes: Buffer, extension: string): Promise<ProbedMedia> => {
  const dir = await mkdtemp(join(tmpdir(), "mds-probe-"))
  try {
    const file = join(dir, `artifact${extension}`)
    await writeFile(file, bytes)
    const { stdout } = await execFileAsync(process.env["FFPROBE_PATH"] ?? "ffprobe", [
      "-v",
      "error",
      "-show_streams",
      "-show_format",
      "-of",
      "json",
      file
    ])
    const info = JSON.parse(stdout) as {
      streams?: Array<{ codec_type?: string; codec_name?: string; disposition?: { attached_pic?: number } }>
      format?: { format_name?: string; duration?: string; bit_rate?: string; tags?: Record<string, string> }
    }
    return {
      codecTypes: (info.streams ?? []).map((s) => s.codec_type ?? "?"),
      codecNames: (info.streams ?? []).map((s) => s.codec_name ?? "?"),
      formatName: info.format?.format_name ?? "",
      durationSeconds: Number(info.format?.duration ?? "0"),
      bitRate: Number(info.format?.bit_rate ?? "0"),
      tags: Object.fromEntries(Object.entries(info.format?.tags ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
      attachedPictures: (info.streams ?? []).filter((s) => s.disposition?.attached_pic === 1).length
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
