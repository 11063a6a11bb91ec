// The JetStream event store on a real nats-server, held to the EventStore port's contract.
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { eventStoreContract } from "../../support/EventStoreContract.ts"
import { TestNats } from "../support/TestNats.ts"

layer(JetStreamEventStore.pipe(Layer.provideMerge(TestNats)), { timeout: 60_000 })("JetStreamEventStore", eventStoreContract)
