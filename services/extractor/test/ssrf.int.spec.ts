// SSRF through the real extractor, warm and cold: every forbidden address class, reached by name, by redirect and by odd IP spellings.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Metric } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ResolveReply } from "@mds/shared/domain/media/ResolveRpc"
import { type MediaServer, startMediaServer } from "../../../test/support/MediaServer.ts"
import { ytDlpStarts } from "../src/warm/WarmStarts.ts"
import { type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"

/** One name per address class the guard must refuse; the guard resolves them from EGRESS_RESOLVE_OVERRIDES. */
const FORBIDDEN_NAMES: ReadonlyArray<readonly [name: string, address: string]> = [
  ["loopback.ssrf.test", "127.0.0.1"],
  ["rfc1918-10.ssrf.test", "10.1.2.3"],
  ["rfc1918-172.ssrf.test", "172.16.5.4"],
  ["rfc1918-192.ssrf.test", "192.168.1.1"],
  ["link-local.ssrf.test", "169.254.169.254"],
  ["cgnat.ssrf.test", "100.64.0.1"],
  ["multicast.ssrf.test", "224.0.0.251"],
  ["unspecified.ssrf.test", "0.0.0.0"],
  ["mapped.ssrf.test", "::ffff:127.0.0.1"],
  ["v6-loopback.ssrf.test", "::1"],
  ["v6-link-local.ssrf.test", "fe80::1"],
  ["v6-unique-local.ssrf.test", "fd00::1"],
  ["v6-unspecified.ssrf.test", "::"]
]

/** Ways of writing 127.0.0.1 that a naive string check would let through. */
const SPELLINGS = ["2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]"]

let media: MediaServer
let internal: Server
let internalPort = 0
const internalHits: Array<string> = []

beforeAll(async () => {
  media = await startMediaServer()
  // Stands for an internal service (a metadata endpoint, an admin UI): it must never see a request.
  internal = createServer((req, res) => {
    internalHits.push(req.url ?? "")
    res.end("secret")
  })
  await new Promise<void>((r) => internal.listen(0, "127.0.0.1", () => r()))
  internalPort = (internal.address() as AddressInfo).port
})

afterAll(async () => {
  await media?.close()
  await new Promise<void>((r) => (internal ? internal.close(() => r()) : r()))
})

const starts = (harness: ExtractorHarness, start: "warm" | "cold") =>
  harness.run(Effect.map(Metric.value(Metric.withAttributes(ytDlpStarts, { start })), (state) => state.count))

const rejection = (reply: ResolveReply) => (reply._tag === "ResolveRejected" ? reply : { code: "succeeded", message: "" })

/**
 * Runs at most `width` at a time: each yt-dlp run is a Python process, and the machine has two cores. The tests with
 * 14 resolves get generous timeouts: on a loaded machine one resolve takes several seconds.
 */
const inBatches = async <A, B>(items: ReadonlyArray<A>, width: number, f: (item: A) => Promise<B>) => {
  const results: Array<B> = []
  for (let i = 0; i < items.length; i += width) results.push(...(await Promise.all(items.slice(i, i + width).map(f))))
  return results
}

const allNames = [...FORBIDDEN_NAMES.map(([name]) => name), "rebind.ssrf.test"]

/**
 * What a redirect is tried against in each mode. The proxy's guard is one piece of code whichever way yt-dlp started;
 * a mode decides only whether the run's traffic goes through it. So the warm runner (the default) meets every class,
 * and a cold start (a Python process of its own each, over a second of CPU) one of each family: private IPv4, the
 * metadata address, IPv6, a rebinding answer, and two spellings.
 */
const redirectTargets = (warmRunner: "on" | "off") =>
  warmRunner === "on"
    ? { names: allNames, spellings: SPELLINGS }
    : {
        names: ["rfc1918-10.ssrf.test", "link-local.ssrf.test", "v6-loopback.ssrf.test", "rebind.ssrf.test"],
        spellings: ["0x7f.0.0.1", "[::ffff:7f00:1]"]
      }

// Both ways a yt-dlp run starts: forked by the warm runner (the default) and cold (while the runner cannot take it).
describe.each(["on", "off"] as const)("YT_DLP_WARM_RUNNER=%s", (warmRunner) => {
  let h: ExtractorHarness
  let before = { warm: 0, cold: 0 }
  beforeAll(async () => {
    h = await startExtractorHarness({
      EGRESS_ALLOW: media.hostPort,
      EGRESS_RESOLVE_OVERRIDES: [
        ...FORBIDDEN_NAMES.map(([name, address]) => `${name}=${address}`),
        // Rebinding-style answer: a public record first, a private one behind it.
        "rebind.ssrf.test=93.184.216.34",
        "rebind.ssrf.test=127.0.0.1"
      ].join(","),
      WORKER_CONCURRENCY: "2",
      YT_DLP_WARM_RUNNER: warmRunner
    })
    before = { warm: await starts(h, "warm"), cold: await starts(h, "cold") }
  })
  afterAll(async () => {
    await h?.close()
  })

  describe("resolve refuses every forbidden address class", () => {
    it("asked directly by a name that resolves there: url_not_allowed naming the address, before any request", async () => {
      for (const [name, address] of FORBIDDEN_NAMES) {
        const reply = rejection(await h.resolve(`http://${name}:${internalPort}/clip.mp4`))
        expect(reply.code, name).toBe("url_not_allowed")
        expect(reply.message, name).toContain(address.replace(/^::ffff:127\.0\.0\.1$/, "::ffff:"))
      }
      expect(rejection(await h.resolve(`http://rebind.ssrf.test:${internalPort}/clip.mp4`)).code).toBe("url_not_allowed")
      expect(internalHits).toEqual([])
    })

    it("asked directly by an alternative spelling of a private IP", async () => {
      for (const host of SPELLINGS) {
        expect(rejection(await h.resolve(`http://${host}:${internalPort}/clip.mp4`)).code, host).toBe("url_not_allowed")
      }
      expect(internalHits).toEqual([])
    })

    it("redirected by an allowed host to a name that resolves to a forbidden address (http, checked in the proxy)", async () => {
      const { names } = redirectTargets(warmRunner)
      const replies = await inBatches(names, 3, (name) => h.resolve(media.urls.redirectTo(`http://${name}:${internalPort}/clip.mp4`)))
      replies.forEach((reply, i) => expect(rejection(reply).code, names[i]).toBe("url_not_allowed"))
      expect(internalHits).toEqual([])
    }, 240_000)

    it("redirected to an alternative spelling of a private IP", async () => {
      const { spellings } = redirectTargets(warmRunner)
      const replies = await inBatches(spellings, 3, (host) => h.resolve(media.urls.redirectTo(`http://${host}:${internalPort}/clip.mp4`)))
      replies.forEach((reply, i) => expect(rejection(reply).code, spellings[i]).toBe("url_not_allowed"))
      expect(internalHits).toEqual([])
    }, 120_000)

    it("redirected to https on a forbidden name (the CONNECT tunnel is refused)", async () => {
      const targets = ["loopback.ssrf.test", "link-local.ssrf.test", "mapped.ssrf.test", "2130706433"]
      const replies = await inBatches(targets, 2, (host) => h.resolve(media.urls.redirectTo(`https://${host}:${internalPort}/clip.mp4`)))
      replies.forEach((reply, i) => expect(rejection(reply).code, targets[i]).toBe("url_not_allowed"))
      expect(internalHits).toEqual([])
    })

    it("refuses schemes other than http and https, also after a redirect", async () => {
      expect(rejection(await h.resolve("file:///etc/passwd")).code).not.toBe("succeeded")
      const reply = rejection(await h.resolve(media.urls.redirectTo("file:///etc/passwd")))
      expect(reply.code).not.toBe("succeeded")
      expect(reply.message).not.toContain("root:")
    })
  })

  describe("download jobs refuse forbidden addresses", () => {
    it("a job redirected to a private name fails with url_not_allowed and frees its slot", async () => {
      const { projectId, jobId } = await h.queueJob(
        media.urls.redirectTo(`http://link-local.ssrf.test:${internalPort}/x.mp4`),
        "video_best"
      )
      const events = await h.waitForEnd(projectId, jobId)
      const last = events.at(-1)
      expect(last?._tag === "JobFailed" && last.error, JSON.stringify(events)).toMatchObject({ code: "url_not_allowed", retryable: false })
      const slots = await h.lastAdmission(projectId)
      expect(slots._tag === "SlotReleased" && slots.held).toEqual([])
    })

    it("a job redirected to a hex-spelled loopback address fails with url_not_allowed", async () => {
      const { projectId, jobId } = await h.queueJob(media.urls.redirectTo(`http://0x7f.0.0.1:${internalPort}/x.mp4`), "audio_mp3")
      const last = (await h.waitForEnd(projectId, jobId)).at(-1)
      expect(last?._tag === "JobFailed" && last.error.code).toBe("url_not_allowed")
      expect(internalHits).toEqual([])
    })
  })

  it("every yt-dlp run above started the way this mode says", async () => {
    const [warm, cold] = [(await starts(h, "warm")) - before.warm, (await starts(h, "cold")) - before.cold]
    expect(warmRunner === "on" ? [warm > 0, cold] : [warm, cold > 0]).toEqual(warmRunner === "on" ? [true, 0] : [0, true])
  })
})
