// The confined process runner on this host: a run reaches its egress proxy and nothing else, and no confinement means no start.
import { createHash, randomBytes } from "node:crypto"
import { createServer as createHttpServer, type Server as HttpServer } from "node:http"
import { type AddressInfo, createServer, type Server } from "node:net"
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseEgressAllowList } from "@mds/shared/egress/EgressAllowList"
import { makeEgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { type EgressProxy, startEgressProxy } from "../src/egress/EgressProxy.ts"
import { Confinement, type ConfinementShape } from "../src/sandbox/Confinement.ts"
import { YT_DLP } from "./ExtractorHarness.ts"

const PYTHON = join(YT_DLP, "..", "python3")
/** 16 MB of random bytes: relayed into the namespace, they must arrive unchanged. */
const BIG = randomBytes(16 * 1024 * 1024)

let canary: Server
let canaryPort = 0
let canaryConnections = 0
let origin: HttpServer
let originPort = 0
let proxy: EgressProxy

const confinementFor = (env: Record<string, string>) =>
  Effect.runPromiseExit(
    Effect.gen(function* () {
      return yield* Confinement
    }).pipe(
      Effect.provide(
        Confinement.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ YT_DLP_PATH: YT_DLP, ...env }))))
      )
    )
  )

const confinement = async (env: Record<string, string> = {}): Promise<ConfinementShape> => {
  const exit = await confinementFor(env)
  if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
  return exit.value
}

/** Runs a python snippet under the runner; its stdout. */
const runPython = (runner: ConfinementShape, code: string, proxyUrl: string | null) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = runner.spawn(PYTHON, ["-I", "-S", "-c", code], { proxyUrl })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    child.on("close", (exitCode) => resolve({ code: exitCode, stdout, stderr }))
  })

/** Tries a TCP connection and an HTTP GET through the proxy; prints "connected"/"refused" and the proxied body. */
const probeScript = (port: number, proxyUrl: string | null) => `
import socket, os
try:
    socket.create_connection(("127.0.0.1", ${port}), timeout=2).close(); print("direct:connected")
except OSError as e:
    print("direct:refused")
print("env:" + ",".join(sorted(k for k in os.environ if "proxy" in k.lower())))
${
  proxyUrl === null
    ? ""
    : `
import urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": "${proxyUrl}"}))
print("proxied:" + opener.open("http://127.0.0.1:${originPort}/", timeout=5).read().decode())`
}
`

const listen = (server: Server | HttpServer) =>
  new Promise<number>((r) => server.listen(0, "127.0.0.1", () => r((server.address() as AddressInfo).port)))

beforeAll(async () => {
  canary = createServer((socket) => {
    canaryConnections++
    socket.destroy()
  })
  canaryPort = await listen(canary)
  origin = createHttpServer((req, res) => res.end(req.url === "/big" ? BIG : "origin"))
  originPort = await listen(origin)
  proxy = await startEgressProxy(makeEgressPolicy(parseEgressAllowList(`127.0.0.1:${originPort}`), async () => []))
})

afterAll(async () => {
  await proxy?.close()
  await new Promise<void>((r) => canary.close(() => r()))
  origin.closeAllConnections()
  await new Promise<void>((r) => origin.close(() => r()))
})

describe("Confinement (namespace)", () => {
  it("a run reaches its proxy and an allowed origin through it, but no loopback port of the host", async () => {
    const runner = await confinement()
    expect(runner.description).toMatch(/^network namespace/)
    process.env.no_proxy = "127.0.0.1,localhost"
    process.env.NO_PROXY = "*"
    try {
      const result = await runPython(runner, probeScript(canaryPort, proxy.url), proxy.url)
      expect(result.stderr).toBe("")
      expect(result.stdout).toContain("direct:refused")
      expect(result.stdout).toContain("proxied:origin")
      expect(result.stdout).toContain("env:HTTPS_PROXY,HTTP_PROXY,http_proxy,https_proxy")
    } finally {
      delete process.env.no_proxy
      delete process.env.NO_PROXY
    }
    expect(canaryConnections).toBe(0)
  })

  it("the relay delivers a large body unchanged", async () => {
    const script = `
import hashlib, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": "${proxy.url}"}))
print(hashlib.sha256(opener.open("http://127.0.0.1:${originPort}/big", timeout=60).read()).hexdigest())`
    const result = await runPython(await confinement(), script, proxy.url)
    expect(result.stdout.trim()).toBe(createHash("sha256").update(BIG).digest("hex"))
  })

  it("a run without a proxy has no network at all", async () => {
    const result = await runPython(await confinement(), probeScript(canaryPort, null), null)
    expect(result.stdout).toContain("direct:refused")
    expect(result.stdout).toContain("env:\n")
    expect(canaryConnections).toBe(0)
  })

  it("refuses to start a run pointed at a proxy this process does not have open", async () => {
    const runner = await confinement()
    expect(() => runner.spawn(PYTHON, ["-c", "pass"], { proxyUrl: `http://127.0.0.1:${canaryPort}` })).toThrow(/not an open egress proxy/)
  })

  it("fails closed: without a way to create namespaces the layer fails, naming the settings that fix it", async () => {
    // A release whose python is refused namespaces, as a host without user namespaces or CAP_SYS_ADMIN refuses them.
    const release = await mkdtemp(join(tmpdir(), "mds-no-namespaces-"))
    await writeFile(join(release, "python3"), '#!/bin/sh\necho "confine: unshare: Operation not permitted" >&2\nexit 1\n')
    await chmod(join(release, "python3"), 0o755)
    try {
      const exit = await confinementFor({ YT_DLP_PATH: join(release, "yt-dlp") })
      expect(Exit.isFailure(exit)).toBe(true)
      const message = String(Exit.isFailure(exit) ? exit.cause : "")
      expect(message).toMatch(/EGRESS_CONFINEMENT=network-policy/)
      expect(message).toMatch(/Operation not permitted/)
    } finally {
      await rm(release, { recursive: true })
    }
  })

  it("an unknown EGRESS_CONFINEMENT is a configuration error, never a silent fallback", async () => {
    const exit = await confinementFor({ EGRESS_CONFINEMENT: "none" })
    expect(Exit.isFailure(exit)).toBe(true)
  })
})

describe("Confinement (network-policy)", () => {
  it("starts runs directly, still with only the run's proxy in their environment", async () => {
    const runner = await confinement({ EGRESS_CONFINEMENT: "network-policy" })
    expect(runner.description).toMatch(/network policy/)
    process.env.no_proxy = "127.0.0.1"
    try {
      const result = await runPython(runner, probeScript(canaryPort, proxy.url), proxy.url)
      // Nothing but an outside policy stops a direct connection in this mode: that is what the mode means.
      expect(result.stdout).toContain("direct:connected")
      expect(result.stdout).toContain("env:HTTPS_PROXY,HTTP_PROXY,http_proxy,https_proxy")
    } finally {
      delete process.env.no_proxy
    }
    canaryConnections = 0
  })
})
