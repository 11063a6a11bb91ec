// JetStream delivery guarantees the aggregator relies on: unacked messages come back after ack_wait, nak'd ones come back.
import { assert, layer } from "@effect/vitest"
import { AckPolicy, DeliverPolicy, type JsMsg } from "@nats-io/jetstream"
import { nanos } from "@nats-io/transport-node"
import { Effect } from "effect"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { TestNats } from "../support/TestNats.ts"

/** A durable pull consumer on one fresh subject, and a function that fetches the next message (or null). */
const consumerOn = (ackWaitMs: number) =>
  Effect.gen(function* () {
    const { js, jsm } = yield* NatsClient
    const subject = jobSubject(newId("prj"), newId("job"))
    const durable = `test-${newId("job").slice(4)}`
    yield* Effect.promise(() =>
      jsm.consumers.add(JOBS_STREAM.name, {
        durable_name: durable,
        filter_subject: subject,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(ackWaitMs)
      })
    )
    const consumer = yield* Effect.promise(() => js.consumers.get(JOBS_STREAM.name, durable))
    const next = (expiresMs: number) => Effect.promise((): Promise<JsMsg | null> => consumer.next({ expires: expiresMs }))
    const publish = (data: string) => Effect.promise(() => js.publish(subject, data))
    return { next, publish }
  })

layer(TestNats, { timeout: 60_000, excludeTestServices: true })("JetStream consumer redelivery", (it) => {
  it.effect("an unacked message is delivered again after ack_wait, with deliveryCount 2", () =>
    Effect.gen(function* () {
      const { next, publish } = yield* consumerOn(1_000)
      yield* publish("first")
      const first = yield* next(2_000)
      assert.strictEqual(first?.string(), "first")
      assert.strictEqual(first?.info.deliveryCount, 1)
      // Not acked: nothing else arrives before ack_wait ends, then the same message comes back.
      const again = yield* next(5_000)
      assert.strictEqual(again?.seq, first?.seq)
      assert.strictEqual(again?.info.deliveryCount, 2)
      assert.isTrue(again?.redelivered)
      again?.ack()
    })
  )

  it.effect("a nak'd message comes back (after its delay), an acked one does not", () =>
    Effect.gen(function* () {
      const { next, publish } = yield* consumerOn(30_000)
      yield* publish("retry me")
      const first = yield* next(2_000)
      const sentAt = Date.now()
      first?.nak(500)
      const again = yield* next(5_000)
      assert.strictEqual(again?.seq, first?.seq)
      assert.strictEqual(again?.info.deliveryCount, 2)
      assert.isAtLeast(Date.now() - sentAt, 400)
      yield* Effect.promise(() => again!.ackAck())
      assert.isNull(yield* next(1_500))
    })
  )

  it.effect("a terminated message is never delivered again", () =>
    Effect.gen(function* () {
      const { next, publish } = yield* consumerOn(500)
      yield* publish("poison")
      yield* publish("fine")
      const poison = yield* next(2_000)
      // Without a reason: nats-server 2.9 ignores "+TERM <reason>" (2.10+ syntax) and would redeliver the message.
      poison?.term()
      const fine = yield* next(2_000)
      assert.strictEqual(fine?.string(), "fine")
      yield* Effect.promise(() => fine!.ackAck())
      assert.isNull(yield* next(2_000))
    })
  )
})
