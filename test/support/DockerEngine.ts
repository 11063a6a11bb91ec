// Tells quickly whether a Docker engine answers (DOCKER_HOST or the default socket), so container tests can skip with a reason.
import { existsSync } from "node:fs"
import { request } from "node:http"

const DEFAULT_SOCKET = "/var/run/docker.sock"

/** A GET /_ping with a 1.5 s budget: a missing socket or a silent engine must not hold up the suite. */
const ping = (options: { socketPath: string } | { host: string; port: number }) =>
  new Promise<boolean>((resolve) => {
    const req = request({ ...options, path: "/_ping", method: "GET", timeout: 1_500 }, (res) => {
      res.resume()
      resolve(res.statusCode === 200)
    })
    req.on("timeout", () => req.destroy())
    req.on("error", () => resolve(false))
    req.end()
  })

export const dockerEngineAvailable = async (): Promise<boolean> => {
  const host = process.env["DOCKER_HOST"]
  if (host !== undefined && host !== "") {
    if (host.startsWith("unix://")) return ping({ socketPath: host.slice("unix://".length) })
    const url = new URL(host.replace(/^tcp:/, "http:"))
    return ping({ host: url.hostname, port: Number(url.port || 2375) })
  }
  return existsSync(DEFAULT_SOCKET) ? ping({ socketPath: DEFAULT_SOCKET }) : false
}

/** Evaluated once per test file at import time (top-level await), so describe.skipIf can use it. */
export const dockerAvailable = await dockerEngineAvailable()

export const NO_DOCKER_REASON = "skipped: no Docker engine reachable (DOCKER_HOST or /var/run/docker.sock), so no container can be started"

/** One line on the console per skipped suite, so a skip is visible in the test output too. */
export const announceDockerSkip = (what: string) => {
  if (!dockerAvailable) console.warn(`[${what}] ${NO_DOCKER_REASON}`)
}
