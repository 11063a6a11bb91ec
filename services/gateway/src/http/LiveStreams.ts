// Response bodies that stay open (server-sent events), by the project that holds them: counted against the project's
// limit, and ended when the server closes, so shutdown does not wait on them.
import type { Writable } from "node:stream"

const open = new Map<Writable, string>()
const perProject = new Map<string, number>()

/** Tracks a live body of `projectId` until it closes by itself. */
export const trackLiveStream = (body: Writable, projectId: string): void => {
  open.set(body, projectId)
  perProject.set(projectId, (perProject.get(projectId) ?? 0) + 1)
  body.once("close", () => {
    if (!open.delete(body)) return
    const left = (perProject.get(projectId) ?? 1) - 1
    if (left > 0) perProject.set(projectId, left)
    else perProject.delete(projectId)
  })
}

/** Ends every live body (clients see the stream end and may reconnect to another gateway). */
export const endLiveStreams = (): void => {
  for (const body of open.keys()) body.end()
  open.clear()
  perProject.clear()
}

export const liveStreamCount = (): number => open.size

/** Bytes written to the open streams that their clients have not taken yet (what the gateway holds for them). */
export const liveStreamBufferedBytes = (): number => {
  let bytes = 0
  for (const body of open.keys()) bytes += body.writableLength + ("readableLength" in body ? Number(body.readableLength) : 0)
  return bytes
}

/** The streams `projectId` holds open on this gateway. */
export const liveStreamsOf = (projectId: string): number => perProject.get(projectId) ?? 0
