// Response bodies that stay open (server-sent events): ended when the server closes, so shutdown does not wait on them.
import type { Writable } from "node:stream"

const open = new Set<Writable>()

/** Tracks a live body until it closes by itself. */
export const trackLiveStream = (body: Writable): void => {
  open.add(body)
  body.once("close", () => open.delete(body))
}

/** Ends every live body (clients see the stream end and may reconnect to another gateway). */
export const endLiveStreams = (): void => {
  for (const body of open) body.end()
  open.clear()
}

export const liveStreamCount = (): number => open.size
