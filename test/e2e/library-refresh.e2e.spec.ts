// End to end: a destination with a media server (a local stand-in for Jellyfin and Plex) has it refresh its libraries
// after deliveries: the right request with the token in its header, one call for a burst of deliveries within the
// debounce window, the outcome shown as last_refresh, and the token in no answer, log or event.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { Client } from "minio"
import { afterAll, describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { startMediaLibraryServer } from "../support/MediaLibraryServer.ts"
import { startMotoServer } from "../support/MotoServer.ts"
import { apiRequest } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { useMediaStack } from "./MediaStack.ts"

const BUCKET = "mds-e2e-library-refresh"
const DEBOUNCE_SECONDS = 15
const JELLYFIN_TOKEN = "jellyfin-token-e2e-0123456789"
const PLEX_TOKEN = "plex-token-e2e-9876543210"
const FOLDER_TOKEN = "folder-jellyfin-token-e2e-555"
const moto = await startMotoServer()
const library = await startMediaLibraryServer()
afterAll(async () => {
  await library.close()
  await moto.close()
})
const motoUrl = new URL(moto.endpoint)
const s3 = new Client({ endPoint: motoUrl.hostname, port: Number(motoUrl.port), useSSL: false, accessKey: "a", secretKey: "b" })
await s3.makeBucket(BUCKET, "us-east-1")

const e2e = useMediaStack({
  stack: (media) => ({
    env: {
      EGRESS_ALLOW: [media.hostPort, motoUrl.host, library.hostPort].join(","),
      LIBRARY_REFRESH_DEBOUNCE_SECONDS: String(DEBOUNCE_SECONDS),
      // For the admin CLI's add-folder (the stack's CLI runs with the stack's env).
      MDS_LIBRARY_REFRESH_TOKEN: FOLDER_TOKEN
    }
  })
})

const createDestination = async (prefix: string, refresh: Record<string, string>) => {
  const created = await apiRequest(e2e.stack.baseUrl, "POST", "/destinations", {
    key: e2e.key,
    json: {
      name: `Library ${prefix}`,
      type: "s3",
      endpoint: moto.endpoint,
      bucket: BUCKET,
      prefix,
      access_key_id: "AKIAREFRESHE2E000001",
      secret_access_key: "library-refresh-secret-0123456789",
      refresh
    }
  })
  expect(created.status, e2e.context(created)).toBe(201)
  expect(JSON.stringify(created.body)).not.toContain(refresh["token"])
  expect(created.body.data.refresh).toEqual({ type: refresh["type"], url: library.url })
  expect(created.body.data.last_refresh).toBeNull()
  return created.body.data.id as string
}

const deliverInto = async (destinationId: string, count: number, batch: string) => {
  const jobIds: Array<string> = []
  for (let i = 0; i < count; i++) {
    const queued = await apiRequest(e2e.stack.baseUrl, "POST", "/media/download", {
      key: e2e.key,
      json: { url: `${e2e.media.urls.mp4}?n=${destinationId}-${batch}${i}`, format: "video_best", destination: { id: destinationId } }
    })
    expect(queued.status, e2e.context(queued)).toBe(202)
    jobIds.push(queued.body.data.job_id)
  }
  for (const jobId of jobIds) {
    const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, jobId, { logs: e2e.stack.logs })
    expect(job.delivery?.status, `${JSON.stringify(job)}\n${e2e.stack.logs()}`).toBe("delivered")
  }
}

const destinationAnswer = async (destinationId: string) => {
  const answer = await apiRequest(e2e.stack.baseUrl, "GET", `/destinations/${destinationId}`, { key: e2e.key })
  expect(answer.status, e2e.context(answer)).toBe(200)
  return answer
}

/** Every message of the destinations' stream, as stored. */
const destinationEventsText = async () => {
  const nc = await connect({ servers: e2e.stack.nats.url })
  try {
    const jsm = await jetstreamManager(nc)
    const info = await jsm.streams.info("MDS_DESTINATIONS")
    const texts: Array<string> = []
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const message = await jsm.streams.getMessage("MDS_DESTINATIONS", { seq }).catch(() => null)
      if (message !== null) texts.push(message.string())
    }
    return texts.join("\n")
  } finally {
    await nc.close()
  }
}

/** How many calls the Jellyfin destination has had, once its test ran. */
let jellyfinCalls = () => 0

describe("library refresh after deliveries", () => {
  it("Jellyfin: POST /Library/Refresh with the token's headers, a burst of deliveries one refresh per window", async () => {
    const destinationId = await createDestination("jellyfin", { type: "jellyfin", url: library.url, token: JELLYFIN_TOKEN })
    const before = library.calls.length
    // Four deliveries well inside one window (two at a time: the project runs two jobs at once).
    await deliverInto(destinationId, 2, "a")
    await deliverInto(destinationId, 2, "b")
    // The first delivery's refresh at once; the three after it one call at the window's end, covering them all.
    const calls = await eventually(
      async () => library.calls.slice(before),
      (seen) => seen.length >= 2,
      "the window's second refresh",
      (DEBOUNCE_SECONDS + 30) * 1000
    )
    expect(calls.length, JSON.stringify(calls.map((c) => [c.method, c.url, c.at]))).toBe(2)
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(DEBOUNCE_SECONDS * 1000 - 500)
    for (const call of calls) {
      expect(call).toMatchObject({ method: "POST", url: "/Library/Refresh" })
      expect(call.headers["x-emby-token"]).toBe(JELLYFIN_TOKEN)
      expect(call.headers["authorization"]).toBe(`MediaBrowser Token="${JELLYFIN_TOKEN}"`)
    }
    const answer = await eventually(
      () => destinationAnswer(destinationId),
      (a) => a.body.data.last_refresh !== null && Date.parse(a.body.data.last_refresh.at) >= calls[1]!.at - 1_000,
      "the second refresh recorded",
      30_000
    )
    expect(answer.body.data.last_refresh).toMatchObject({ ok: true, error: null })
    expect(JSON.stringify(answer.body)).not.toContain(JELLYFIN_TOKEN)
    jellyfinCalls = () => library.calls.slice(before).filter((call) => call.url === "/Library/Refresh").length
  })

  it("Plex: GET /library/sections/all/refresh with X-Plex-Token; a 503 is tried again, a refused token shows as refresh_denied", async () => {
    library.answerNext(503)
    library.answerWith(401)
    const destinationId = await createDestination("plex", { type: "plex", url: library.url, token: PLEX_TOKEN })
    const before = library.calls.length
    await deliverInto(destinationId, 1, "a")
    const calls = await eventually(
      async () => library.calls.slice(before),
      (seen) => seen.length >= 2,
      "the refresh and its retry after the 503",
      30_000
    )
    for (const call of calls) {
      expect(call).toMatchObject({ method: "GET", url: "/library/sections/all/refresh" })
      expect(call.headers["x-plex-token"]).toBe(PLEX_TOKEN)
    }
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(900)
    const answer = await eventually(
      () => destinationAnswer(destinationId),
      (a) => a.body.data.last_refresh !== null,
      "last_refresh recorded",
      30_000
    )
    expect(answer.body.data.last_refresh).toMatchObject({ ok: false, error: "refresh_denied" })
    library.answerWith(204)
  })

  it("an operator's folder with a media server (admin CLI, token from the environment) has it refreshed", async () => {
    const folder = await mkdtemp(join(tmpdir(), "mds-refresh-folder-"))
    const destinationId = await e2e.stack.cli([
      "destination",
      "add-folder",
      "--project",
      e2e.projectId,
      "--name",
      "Jellyfin library",
      "--path",
      folder,
      "--refresh-type",
      "jellyfin",
      "--refresh-url",
      `${library.url}/jf/`
    ])
    expect(destinationId).toMatch(/^dst_/)
    const before = library.calls.length
    await deliverInto(destinationId, 1, "f")
    const [call] = await eventually(
      async () => library.calls.slice(before),
      (seen) => seen.length >= 1,
      "the folder's refresh",
      30_000
    )
    expect(call).toMatchObject({ method: "POST", url: "/jf/Library/Refresh" })
    expect(call!.headers["x-emby-token"]).toBe(FOLDER_TOKEN)
    const answer = await destinationAnswer(destinationId)
    expect(answer.body.data.refresh).toEqual({ type: "jellyfin", url: `${library.url}/jf` })
    await rm(folder, { recursive: true, force: true })
  })

  it("no token in any answer list, log or stored event", async () => {
    const list = await apiRequest(e2e.stack.baseUrl, "GET", "/destinations", { key: e2e.key })
    expect(list.status).toBe(200)
    const events = await destinationEventsText()
    expect(events).toContain("DestinationLibraryRefreshed")
    // Every delivery into the Jellyfin destination was covered by its second refresh: none came since.
    expect(jellyfinCalls()).toBe(2)
    for (const token of [JELLYFIN_TOKEN, PLEX_TOKEN, FOLDER_TOKEN]) {
      expect(JSON.stringify(list.body)).not.toContain(token)
      expect(e2e.stack.logs()).not.toContain(token)
      expect(events).not.toContain(token)
    }
  })
})
