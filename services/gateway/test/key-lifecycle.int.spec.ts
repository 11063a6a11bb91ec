// Key lookup cache and usage: read-your-writes for new keys, revocation reaching a second gateway's cache, and
// last-used times coalesced into one KeyUsed per key and flush instead of a write per request.
import { KeyUsed } from "@mds/shared/domain/account/AccountEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { KEY_USAGE_STREAM, keyUsageSubject } from "@mds/shared/nats/Subjects"
import { hashSecret, keyIdFromHash } from "@mds/shared/keys/ApiKeySecret"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { KeyUsageRecorder } from "../src/auth/KeyUsageRecorder.ts"
import { runAdminCommand } from "../src/cli/runAdminCommand.ts"
import { type GatewayInstance, type Harness, PEPPER, startGateway, startHarness } from "./GatewayHarness.ts"

let h: Harness
let second: GatewayInstance

beforeAll(async () => {
  h = await startHarness()
  // A second gateway on the same NATS, as a replica would run; its flush interval is long so the test flushes by hand.
  second = await startGateway({ ...h.env, KEY_LAST_USED_FLUSH_SECONDS: "3600" })
})
afterAll(async () => {
  await second?.close()
  await h?.close()
})

const authOn = async (gateway: GatewayInstance, key: string) => {
  const response = await gateway.app.inject({
    method: "GET",
    url: "/v1/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaa",
    headers: { "x-api-key": key }
  })
  const code: string = response.json().error.code
  return code === "job_not_found" ? "accepted" : code
}

const flushUsage = () =>
  second.run(
    Effect.gen(function* () {
      const recorder = yield* KeyUsageRecorder
      return yield* recorder.flush
    })
  )

const usageLastSeq = () =>
  second.run(
    Effect.gen(function* () {
      const { jsm } = yield* NatsClient
      return (yield* Effect.promise(() => jsm.streams.info(KEY_USAGE_STREAM.name))).state.last_seq
    })
  )

describe("key directory and usage", () => {
  it("a key works on another gateway the moment it is created, and is refused there within 1 s of its revocation", async () => {
    const { key } = await h.provisionKey()
    expect(await authOn(second, key)).toBe("accepted")
    const revokedAt = Date.now()
    await h.gateway.run(runAdminCommand({ _tag: "RevokeKey", key }))
    // Asked every 10 ms until 1 s after the revocation began: the wait itself is what is measured.
    const outcome = await eventually(
      () => authOn(second, key),
      (now) => now !== "accepted",
      "the other gateway to refuse the key",
      Math.max(0, revokedAt + 1_000 - Date.now()),
      10
    )
    expect(outcome).toBe("revoked_api_key")
  })

  it("many requests with a key become one KeyUsed per flush, carrying the latest use", async () => {
    const { key, projectId } = await h.provisionKey()
    const keyId = keyIdFromHash(hashSecret(PEPPER, key))
    await flushUsage() // uses left over from the other tests
    const before = await usageLastSeq()
    for (let i = 0; i < 40; i++) expect(await authOn(second, key)).toBe("accepted")
    const afterRequests = Date.now()
    // No write per request: nothing is appended until the flush.
    expect(await usageLastSeq()).toBe(before)

    const flushed = await flushUsage()
    expect(flushed).toBe(1)
    expect(await usageLastSeq()).toBe(before + 1)
    const [stored] = await second.run(
      Effect.gen(function* () {
        const store = yield* EventStore
        return yield* store.readSubject(KeyUsed, keyUsageSubject(keyId))
      })
    )
    expect(stored?.event).toMatchObject({ _tag: "KeyUsed", keyId, projectId })
    expect(stored?.event.at).toBeLessThanOrEqual(afterRequests)
    expect(stored?.event.at).toBeGreaterThan(afterRequests - 30_000)

    // Nothing used since: a flush appends nothing.
    expect(await flushUsage()).toBe(0)
    expect(await usageLastSeq()).toBe(before + 1)
  })

  it("failed authentications are not uses", async () => {
    const { key } = await h.provisionKey({ scopes: ["media:resolve"] })
    await flushUsage()
    const before = await usageLastSeq()
    const refused = await second.app.inject({
      method: "POST",
      url: "/v1/media/download",
      headers: { "x-api-key": key, "content-type": "application/json" },
      payload: JSON.stringify({ url: "https://vimeo.com/1", format: "video_best" })
    })
    expect(refused.json().error.code).toBe("insufficient_scope")
    expect(await flushUsage()).toBe(0)
    expect(await usageLastSeq()).toBe(before)
  })
})
