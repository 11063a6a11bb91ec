// A TCP relay in front of a server that a test can cut and restore: the client behind it loses its connection (and
// every message sent meanwhile) exactly when the test says, as during a network partition or a server failover.
import { connect, createServer, type Socket } from "node:net"

export interface TcpRelay {
  /** nats://127.0.0.1:<port> of the relay. */
  readonly url: string
  /** Drops every relayed connection and refuses new ones until `restore`. */
  cut(): void
  restore(): void
  close(): Promise<void>
}

export const startTcpRelay = async (targetPort: number): Promise<TcpRelay> => {
  const open = new Set<Socket>()
  let cut = false
  const server = createServer((client) => {
    if (cut) return client.destroy()
    const upstream = connect(targetPort, "127.0.0.1")
    open.add(client)
    open.add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      open.delete(client)
      open.delete(upstream)
    }
    client.on("error", drop).on("close", drop)
    upstream.on("error", drop).on("close", drop)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  const dropAll = () => {
    for (const socket of open) socket.destroy()
    open.clear()
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    cut: () => {
      cut = true
      dropAll()
    },
    restore: () => {
      cut = false
    },
    close: async () => {
      dropAll()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
