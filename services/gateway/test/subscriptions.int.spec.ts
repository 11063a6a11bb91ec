// /v1/subscriptions over the gateway (a fake extractor answers the resolve RPC, the aggregator's list projection runs):
// create, read, list, pause, resume, check now and remove, with their errors; the checks are the aggregator's
// (test/int/subscriptions).
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { subscriptionSubject } from "@mds/shared/nats/Subjects"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import { subscriptionView } from "../../../test/int/readmodel/SubscriptionReadModel.contract.ts"
import { eventually } from "../../../test/support/Eventually.ts"
import { startListProjections } from "./AggregatorProjections.ts"
import { type Harness, startHarness } from "./GatewayHarness.ts"
import { runAdminCommand } from "../src/cli/runAdminCommand.ts"
import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runMds } from "../../../test/support/MdsCli.ts"

let h: Harness
let projections: Awaited<ReturnType<typeof startListProjections>>
let key: string
let projectId: string
let otherKey: string
let readOnlyKey: string

beforeAll(async () => {
  h = await startHarness()
  ;({ key, projectId } = await h.provisionKey())
  ;({ key: otherKey } = await h.provisionKey())
  ;({ key: readOnlyKey } = await h.provisionKey({ scopes: ["media:resolve"] }))
  projections = await startListProjections(h.env)
})
afterAll(async () => {
  await projections?.dispose()
  await h?.close()
})

const call = (method: "GET" | "POST" | "DELETE", url: string, body?: unknown, apiKey = key) =>
  h.gateway.app.inject({
    method,
    url,
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), "x-api-key": apiKey }
  })

const FEED = "https://example.com/feed.xml"

const listedIds = async () => (await call("GET", "/v1/subscriptions")).json().data.map((s: { id: string }) => s.id) as Array<string>

describe("/v1/subscriptions", () => {
  it("creates a subscription of a playlist URL whose first check is due at once", async () => {
    const created = await call("POST", "/v1/subscriptions", {
      url: FEED,
      format: "audio_mp3",
      check_every: 7200,
      backfill: 2,
      filters: { title_contains: "Episode", min_duration: 30 }
    })
    expect(created.statusCode, created.body).toBe(201)
    const body = created.json().data
    expect(body).toMatchObject({
      url: FEED,
      format: "audio_mp3",
      status: "active",
      check_every: 7200,
      backfill: 2,
      filters: { title_contains: "Episode", min_duration: 30 },
      last_check: null,
      last_error: null
    })
    expect(body.next_check_at).toBe(body.created_at)
    const events = await h.gateway.run(
      Effect.gen(function* () {
        return yield* (yield* EventStore).readSubject(SubscriptionEvent, subscriptionSubject(projectId, body.id))
      })
    )
    expect(events.map((e) => e.event._tag)).toEqual(["SubscriptionCreated"])
  })

  it("refuses a URL that resolves as one media (422 not_a_playlist) and a key without the download scope (403)", async () => {
    const single = await call("POST", "/v1/subscriptions", { url: "https://example.com/watch/1", format: "audio_mp3" })
    expect(single.statusCode).toBe(422)
    expect(single.json().error.code).toBe("not_a_playlist")
    expect(single.json().error.message).toContain("not as a playlist")
    const noScope = await call("POST", "/v1/subscriptions", { url: FEED, format: "audio_mp3" }, readOnlyKey)
    expect(noScope.statusCode).toBe(403)
  })

  it.each([
    ["check_every under 15 minutes", { check_every: 60 }, "check_every: must be a whole number of seconds from 900"],
    ["check_every past JavaScript's dates", { check_every: 9_000_000_000_000 }, "check_every: must be a whole number of seconds from 900"],
    ["check_every over 30 days", { check_every: 2_592_001 }, "to 2592000 (30 days)"],
    ["a backfill over 50", { backfill: 51 }, "backfill: must be a whole number from 0 to 50"],
    ["a URL over 2048 characters", { url: `${FEED}?${"a".repeat(2048)}` }, "url: must be at most 2048 characters"],
    ["published_after that is only a year", { filters: { published_after: "2024" } }, "filters.published_after: must be a day"]
  ])("refuses %s at the edge: 400 invalid_request in the envelope", async (_label, fields, message) => {
    const refused = await call("POST", "/v1/subscriptions", { url: FEED, format: "audio_mp3", ...fields })
    expect(refused.statusCode, refused.body).toBe(400)
    expect(refused.json().error).toMatchObject({ code: "invalid_request", request_id: refused.headers["x-request-id"] })
    expect(refused.json().error.message).toContain(message)
    // The project's own list still answers (a next check past JavaScript's dates made it 500).
    expect((await call("GET", "/v1/subscriptions")).statusCode).toBe(200)
  })

  // The OpenAPI document shows each field's form but cannot say "a real day" or "at most the other field": a body
  // that matches the document is not a 400 (generated clients and conformance fuzzers send such bodies).
  it.each([
    [
      "min_duration over max_duration",
      { filters: { min_duration: 600, max_duration: 60 } },
      "filters.min_duration: must be at most max_duration"
    ],
    [
      "published_after on no calendar day",
      { filters: { published_after: "2023-02-30" } },
      "filters.published_after: must name a real calendar day"
    ],
    ["a date-time on no calendar day", { filters: { published_after: "2024-04-31T10:00:00Z" } }, "must name a real calendar day"]
  ])("refuses %s, which the document's form admits: 422 invalid_options", async (_label, fields, message) => {
    const refused = await call("POST", "/v1/subscriptions", { url: FEED, format: "audio_mp3", ...fields })
    expect(refused.statusCode, refused.body).toBe(422)
    expect(refused.json().error).toMatchObject({ code: "invalid_options", request_id: refused.headers["x-request-id"] })
    expect(refused.json().error.message).toContain(message)
    // The project's own list still answers (a next check past JavaScript's dates made it 500).
    expect((await call("GET", "/v1/subscriptions")).statusCode).toBe(200)
  })

  it("pauses, refuses check now while paused, resumes, checks now (202) and removes; another project sees none of it", async () => {
    const id = (await call("POST", "/v1/subscriptions", { url: `${FEED}?lifecycle`, format: "audio_m4a" })).json().data.id
    // The list is the aggregator's read model: the subscription shows up there within moments.
    await eventually(listedIds, (ids) => ids.includes(id), `${id} listed`)
    expect((await call("GET", "/v1/subscriptions", undefined, otherKey)).json().data).toEqual([])
    expect((await call("GET", `/v1/subscriptions/${id}`, undefined, otherKey)).statusCode).toBe(404)

    const paused = await call("POST", `/v1/subscriptions/${id}/pause`)
    expect(paused.statusCode, paused.body).toBe(200)
    expect(paused.json().data).toMatchObject({ status: "paused", next_check_at: null })
    const refused = await call("POST", `/v1/subscriptions/${id}/check`)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error.code).toBe("subscription_paused")
    expect((await call("POST", `/v1/subscriptions/${id}/resume`)).json().data.status).toBe("active")
    const checked = await call("POST", `/v1/subscriptions/${id}/check`)
    expect(checked.statusCode).toBe(202)

    expect((await call("DELETE", `/v1/subscriptions/${id}`)).json().data).toEqual({ id, removed: true })
    const gone = await call("GET", `/v1/subscriptions/${id}`)
    expect(gone.statusCode).toBe(404)
    expect(gone.json().error.code).toBe("subscription_not_found")
    await eventually(listedIds, (ids) => !ids.includes(id), `${id} gone from the list`)
  })

  it("lists what the list read model holds (one document per subscription, never its stream), oldest first, removed ones left out", async () => {
    const { projectId: listedProject, key: listedKey } = await h.provisionKey()
    // As the aggregator's projection writes them: subscriptions whose streams this test never wrote.
    const newer = subscriptionView(listedProject, {
      createdAt: 2_000,
      lastCheck: { at: 3_000, found: 7, new: 2, filtered: 1, queued: 1 },
      nextCheckAt: 3_603_000,
      lastSeq: 4
    })
    const older = subscriptionView(listedProject, { createdAt: 1_000, paused: true })
    const removed = subscriptionView(listedProject, { createdAt: 500, removed: true })
    await h.gateway.run(Effect.forEach([newer, removed, older], (view) => Effect.flatMap(SubscriptionReadModel, (rm) => rm.put(view))))
    const listed = await call("GET", "/v1/subscriptions", undefined, listedKey)
    expect(listed.statusCode, listed.body).toBe(200)
    expect(listed.json().data).toMatchObject([
      { id: older.subscriptionId, status: "paused", next_check_at: null, last_check: null },
      {
        id: newer.subscriptionId,
        status: "active",
        filters: { title_contains: "live", published_after: "2026-01-01T00:00:00.000Z" },
        last_check: { at: "1970-01-01T00:00:03.000Z", found: 7, new: 2, filtered: 1, queued: 1 },
        next_check_at: "1970-01-01T01:00:03.000Z"
      }
    ])
  })

  it("refuses a subscription past the project's limit (429 subscription_limit_reached), set per project with the admin CLI", async () => {
    const { projectId: limited, key: limitedKey } = await h.provisionKey()
    await h.gateway.run(runAdminCommand({ _tag: "SetQuota", projectId: limited, subscriptions: "2" }))
    const subscribe = (n: number) => call("POST", "/v1/subscriptions", { url: `${FEED}?limited=${n}`, format: "audio_mp3" }, limitedKey)
    const ids: Array<string> = []
    for (const n of [1, 2]) {
      const created = await subscribe(n)
      expect(created.statusCode, created.body).toBe(201)
      ids.push(created.json().data.id)
    }
    const listed = () => call("GET", "/v1/subscriptions", undefined, limitedKey).then((r) => r.json().data.length as number)
    await eventually(listed, (count) => count === 2, "both listed")
    const refused = await subscribe(3)
    expect(refused.statusCode, refused.body).toBe(429)
    expect(refused.json().error).toMatchObject({ code: "subscription_limit_reached", message: expect.stringContaining("2 subscriptions") })
    // Another project is not limited by this one's; a removal makes room.
    expect((await call("POST", "/v1/subscriptions", { url: `${FEED}?other`, format: "audio_mp3" }, otherKey)).statusCode).toBe(201)
    expect((await call("DELETE", `/v1/subscriptions/${ids[0]}`, undefined, limitedKey)).statusCode).toBe(200)
    await eventually(listed, (count) => count === 1, "one removed")
    expect((await subscribe(4)).statusCode).toBe(201)
  })

  it("mds subscribe --destination --keep-last: the rule is the subscription's, shown back; both rules at once is wrong usage", async () => {
    const folder = await mkdtemp(join(tmpdir(), "mds-cli-subscribe-"))
    const destinationId = String(
      await h.gateway.run(runAdminCommand({ _tag: "AddFolderDestination", projectId, name: "library", path: folder }))
    )
    const address = await h.gateway.app.listen({ host: "127.0.0.1", port: 0 })
    const mds = (...argv: ReadonlyArray<string>) => runMds(address, key, argv)
    const created = await mds(
      "subscribe",
      `${FEED}?cli`,
      "--format",
      "audio_mp3",
      "--destination",
      destinationId,
      "--keep-last",
      "3",
      "--json"
    )
    expect(created.code, created.stderr).toBe(0)
    const subscription = JSON.parse(created.stdout) as { id: string; retention?: unknown }
    expect(subscription.retention).toEqual({ keep_last: 3 })
    const shown = await mds("subscriptions", "get", subscription.id)
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain("keeps the last 3")
    const both = await mds(
      "subscribe",
      `${FEED}?both`,
      "--format",
      "audio_mp3",
      "--destination",
      destinationId,
      "--keep-last",
      "3",
      "--keep-days",
      "7"
    )
    expect(both.code).toBe(2)
    expect(both.stderr).toContain("--keep-last or --keep-days")
    // A rule without a destination is the service's to refuse: it would have no delivered files to remove.
    const without = await mds("subscribe", `${FEED}?without`, "--format", "audio_mp3", "--keep-days", "7")
    expect(without.code).toBe(1)
    expect(without.stderr).toContain("invalid_options")
  })
})
