// The warm runner's answer on a run's connection, read as it arrives: frames of one tag byte, a 4-byte big-endian length and the payload.
import { Schema } from "effect"

export type FrameTag = "p" | "o" | "e" | "x"

export interface Frame {
  /** "p": the run started (its process group), "o"/"e": yt-dlp's stdout/stderr bytes, "x": how it ended. */
  readonly tag: FrameTag
  readonly payload: Buffer
}

const HEADER = 5
const TAGS: ReadonlySet<string> = new Set(["p", "o", "e", "x"])

export class RunnerProtocolError extends Schema.TaggedError<RunnerProtocolError>()("RunnerProtocolError", {
  message: Schema.String
}) {}

/** Splits the byte stream into frames; a chunk may hold several frames or part of one. Throws on a tag it does not know. */
export const frameReader = () => {
  let pending: Buffer = Buffer.alloc(0)
  return (chunk: Buffer): ReadonlyArray<Frame> => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    const frames: Array<Frame> = []
    while (pending.length >= HEADER) {
      const tag = String.fromCharCode(pending[0] ?? 0)
      if (!TAGS.has(tag)) throw new RunnerProtocolError({ message: `unknown frame tag ${JSON.stringify(tag)}` })
      const length = pending.readUInt32BE(1)
      if (pending.length < HEADER + length) break
      frames.push({ tag: tag as FrameTag, payload: pending.subarray(HEADER, HEADER + length) })
      pending = pending.subarray(HEADER + length)
    }
    return frames
  }
}

/** "p": the runner's pid, which leads the run's process group (the one to kill). */
export const RunStarted = Schema.Struct({ pgid: Schema.Int })

/** "x": yt-dlp's exit code, or the signal that killed it. */
export const RunExited = Schema.Struct({ code: Schema.NullOr(Schema.Int), signal: Schema.NullOr(Schema.Int) })

export const decodeRunStarted = Schema.decodeUnknownSync(Schema.fromJsonString(RunStarted))
export const decodeRunExited = Schema.decodeUnknownSync(Schema.fromJsonString(RunExited))
