// NATS_REPLICAS on a 3-node cluster: every stream and KV bucket is created with it, raised to it on start, never lowered.
import { connect } from "@nats-io/transport-node"
import { ConfigProvider, Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { ensureStreams, streamConfigs } from "@mds/shared/eventstore/StreamTopology"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { openKvBucket } from "@mds/shared/readmodel/kv/KvBucket"
import { makeKvReadModelStores } from "@mds/shared/readmodel/kv/KvReadModelStores"
import { type NatsCluster, startNatsCluster, waitUntilHealthy } from "../../support/NatsCluster.ts"
import { startNatsServer } from "../../support/NatsServer.ts"
import { testLifetimes } from "../support/TestNats.ts"

const streamNames = streamConfigs(testLifetimes).map((c) => c.name)

/** Runs `effect` as a service started with these settings would: NatsClient from NATS_URL and NATS_REPLICAS. */
const asService = <A, E>(env: Record<string, string>, effect: Effect.Effect<A, E, NatsClient | Lifetimes>) =>
  Effect.runPromise(
    effect.pipe(
      Effect.provide(
        Layer.mergeAll(
          NatsClient.layerFailFast.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))),
          Layer.succeed(Lifetimes, testLifetimes)
        )
      ),
      Effect.scoped
    )
  )

const replicasOf = (url: string, stream: string) =>
  asService(
    { NATS_URL: url },
    Effect.flatMap(NatsClient, ({ jsm }) => Effect.promise(() => jsm.streams.info(stream)))
  ).then((info) => info.config.num_replicas)

const startServices = (url: string, replicas: string) =>
  asService(
    { NATS_URL: url, NATS_REPLICAS: replicas },
    Effect.gen(function* () {
      yield* ensureStreams
      yield* openKvBucket("mds_jobs_test", 60_000)
      yield* makeKvReadModelStores("mds_readmodels_test")
    })
  )

/** A 3-node cluster of its own for the enclosing describe's tests. */
const clusterForTheseTests = () => {
  let cluster: NatsCluster | undefined
  beforeAll(async () => {
    cluster = await startNatsCluster(3)
  }, 60_000)
  afterAll(() => cluster?.close())
  return () => {
    if (cluster === undefined) throw new Error("the cluster is not started")
    return cluster
  }
}

describe("NATS_REPLICAS on a 3-node cluster", () => {
  const cluster = clusterForTheseTests()

  it("creates with one replica by default, raises every stream and bucket to NATS_REPLICAS, and never lowers it", async () => {
    const everything = [...streamNames, "KV_mds_jobs_test", "KV_mds_readmodels_test"]
    await startServices(cluster().url, "1")
    for (const stream of everything) expect(await replicasOf(cluster().url, stream), stream).toBe(1)

    await startServices(cluster().url, "3")
    for (const stream of everything) expect(await replicasOf(cluster().url, stream), stream).toBe(3)

    // A service started with a smaller setting (a forgotten default) leaves what is there.
    await startServices(cluster().url, "1")
    for (const stream of everything) expect(await replicasOf(cluster().url, stream), stream).toBe(3)
  }, 120_000)

  it("keeps a replica count an operator raised by hand above NATS_REPLICAS", async () => {
    await asService(
      { NATS_URL: cluster().url },
      Effect.flatMap(NatsClient, ({ jsm }) =>
        Effect.promise(async () => {
          await jsm.streams.add({
            name: "KV_mds_by_hand",
            subjects: ["$KV.mds_by_hand.>"],
            num_replicas: 1,
            max_msgs_per_subject: 1,
            allow_rollup_hdrs: true,
            deny_delete: true,
            allow_direct: true
          })
          await jsm.streams.update("KV_mds_by_hand", { num_replicas: 3 })
        })
      )
    )
    await asService({ NATS_URL: cluster().url, NATS_REPLICAS: "2" }, openKvBucket("mds_by_hand", 0))
    expect(await replicasOf(cluster().url, "KV_mds_by_hand")).toBe(3)
  }, 60_000)
})

describe("a service starting on a 3-node cluster without quorum", () => {
  const cluster = clusterForTheseTests()

  it("waits out a cluster that cannot answer yet (no quorum) instead of failing the start, then creates everything", async () => {
    // Two of three nodes stalled: the node the service talks to cannot get a stream created (no meta quorum) and its
    // requests time out or are answered "temporarily unavailable", as while a cluster forms or elects a meta leader.
    const [reached, ...stalled] = cluster().nodes
    if (reached === undefined) throw new Error("no nodes")
    for (const node of stalled) node.pause()
    const started = startServices(reached.url, "3").then(() => "started" as const)
    // The wait is the subject: the stall must outlast the client's 5 s request timeout, which failed the start before.
    const resumed = new Promise<void>((resolve) =>
      setTimeout(() => {
        for (const node of stalled) node.resume()
        resolve()
      }, 6_000)
    )
    try {
      // Still waiting after the first request's 5 s timeout: the start did not fail on it.
      expect(await Promise.race([started, resumed.then(() => "waiting" as const)])).toBe("waiting")
      expect(await started).toBe("started")
    } finally {
      for (const node of stalled) node.resume()
      await waitUntilHealthy(cluster().nodes)
    }
    expect(await replicasOf(cluster().url, "KV_mds_readmodels_test")).toBe(3)
  }, 60_000)
})

describe("the event store on a 3-node cluster with 3 replicas", () => {
  const cluster = clusterForTheseTests()

  it("reads every append it was acknowledged, through a node that does not lead the stream", async () => {
    await startServices(cluster().url, "3")
    const leader = await asService(
      { NATS_URL: cluster().url },
      Effect.flatMap(NatsClient, ({ jsm }) => Effect.promise(() => jsm.streams.info(JOBS_STREAM.name)))
    ).then((info) => info.cluster?.leader)
    const metaLeader = await fetch(`http://127.0.0.1:${cluster().nodes[0]?.monitorPort}/jsz`)
      .then((r) => r.json() as Promise<{ meta_cluster?: { leader?: string } }>)
      .then((jsz) => jsz.meta_cluster?.leader)
    // The stalled node must lead neither the stream nor JetStream's meta group (the API would stop answering).
    const followers = cluster().nodes.filter((n) => n.name !== leader)
    const stalled = followers.find((n) => n.name !== metaLeader)
    const follower = followers.find((n) => n !== stalled)
    if (follower === undefined || stalled === undefined) throw new Error("no followers")
    // With the other follower stalled, every append needs this one in its quorum; it applies the append only when
    // the leader tells it the append is committed, after the acknowledgement: a read it answered could lag.
    stalled.pause()
    const projectId = newId("prj")
    const stale = await asService(
      { NATS_URL: follower.url, NATS_REPLICAS: "3" },
      Effect.gen(function* () {
        const store = yield* EventStore
        let misses = 0
        // A command reads right after the previous one appended (e.g. a key created right after its project); sixteen
        // at once keep the replicas busy, so that a follower answering a read would sometimes be behind.
        const one = (i: number) =>
          Effect.gen(function* () {
            const jobId = newId("job")
            const subject = jobSubject(projectId, jobId)
            const appended = yield* store.append(
              JobEvent,
              subject,
              { _tag: "JobProgressed", v: 1, jobId, percent: 1, at: i },
              { msgId: `${jobId}:1` }
            )
            const last = yield* store.readLast(JobEvent, subject)
            const all = yield* store.readSubject(JobEvent, subject)
            if (last._tag === "None" || last.value.seq !== appended.seq || all.length !== 1) misses++
          })
        yield* Effect.forEach(
          Array.from({ length: 1_600 }, (_, i) => i),
          one,
          { concurrency: 16 }
        )
        return misses
      }).pipe(Effect.provide(JetStreamEventStore), Effect.ensuring(Effect.sync(() => stalled.resume())))
    )
    expect(stale).toBe(0)
  }, 120_000)
})

describe("the event store's reads on a 3-node cluster", () => {
  const cluster = clusterForTheseTests()

  it("go to the stream's leader when the stream has 3 replicas, though the service was started with NATS_REPLICAS=1", async () => {
    await startServices(cluster().url, "3")
    // Every JetStream API request is a core NATS message: a second connection sees which kind of get each read was.
    const spy = await connect({ servers: cluster().url.split(",") })
    const gets = { direct: 0, leader: 0 }
    spy.subscribe(`$JS.API.DIRECT.GET.${JOBS_STREAM.name}`, { callback: () => void gets.direct++ })
    spy.subscribe(`$JS.API.DIRECT.GET.${JOBS_STREAM.name}.>`, { callback: () => void gets.direct++ })
    spy.subscribe(`$JS.API.STREAM.MSG.GET.${JOBS_STREAM.name}`, { callback: () => void gets.leader++ })
    await spy.flush()
    try {
      const reads = await asService(
        { NATS_URL: cluster().url, NATS_REPLICAS: "1" },
        Effect.gen(function* () {
          const store = yield* EventStore
          const jobId = newId("job")
          const subject = jobSubject(newId("prj"), jobId)
          yield* store.append(JobEvent, subject, { _tag: "JobProgressed", v: 1, jobId, percent: 1, at: 1 }, { msgId: `${jobId}:1` })
          const last = yield* store.readLast(JobEvent, subject)
          const all = yield* store.readSubject(JobEvent, subject)
          return { last: last._tag, all: all.length }
        }).pipe(Effect.provide(JetStreamEventStore))
      )
      expect(reads).toEqual({ last: "Some", all: 1 })
      await spy.flush()
      expect(gets.direct).toBe(0)
      // readLast once; readSubject twice (the event, then nothing after it).
      expect(gets.leader).toBe(3)
    } finally {
      await spy.close()
    }
  }, 120_000)

  it("appends a decision's events as one atomic batch on a stream with 3 replicas", async () => {
    await startServices(cluster().url, "3")
    const stored = await asService(
      { NATS_URL: cluster().url },
      Effect.gen(function* () {
        const store = yield* EventStore
        const jobId = newId("job")
        const subject = jobSubject(newId("prj"), jobId)
        const progressed = (percent: number): JobEvent => ({ _tag: "JobProgressed", v: 1, jobId, percent, at: percent })
        yield* store.appendBatch(
          JobEvent,
          subject,
          [
            { event: progressed(1), msgId: `${jobId}:1` },
            { event: progressed(2), msgId: `${jobId}:2` }
          ],
          { expectedLastSeq: 0 }
        )
        return (yield* store.readSubject(JobEvent, subject)).map((item) => item.event)
      }).pipe(Effect.provide(JetStreamEventStore))
    )
    expect(stored.map((event) => (event._tag === "JobProgressed" ? event.percent : -1))).toEqual([1, 2])
  }, 120_000)
})

describe("NATS_REPLICAS", () => {
  it("is refused outside 1 to 5 at start", async () => {
    await expect(startServices("nats://127.0.0.1:1", "0")).rejects.toThrow(/NATS_REPLICAS/)
    await expect(startServices("nats://127.0.0.1:1", "7")).rejects.toThrow(/NATS_REPLICAS/)
  })

  it("above 1 on a single server fails at start, saying why", async () => {
    const server = await startNatsServer()
    try {
      await expect(startServices(server.url, "3")).rejects.toThrow(
        /replicas > 1 not supported in non-clustered mode \(stream MDS_\w+, NATS_REPLICAS=3\)/
      )
    } finally {
      await server.close()
    }
  })
})
