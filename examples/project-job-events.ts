// Example subscriber for internal services: prints one project's job events (history first, then live) from MDS_JOBS.
//   NATS_URL=nats://127.0.0.1:4223 node examples/project-job-events.ts prj_...
// An ordered consumer replays and follows a subject filter without acks or server-side state; every message is decoded
// with the shared schema, and one that does not decode (a newer version, say) is reported and skipped, never fatal.
import { DeliverPolicy, jetstream } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { Option, Schema } from "effect"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { evolveJobView } from "@mds/shared/domain/job/JobState"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { ProjectId } from "@mds/shared/ids/Ids"

const projectId = process.argv[2] ?? ""
if (!Schema.is(ProjectId)(projectId)) {
  process.stderr.write("usage: node examples/project-job-events.ts <projectId>\n")
  process.exit(2)
}

const decodeJobEvent = Schema.decodeUnknownOption(Schema.fromJsonString(JobEvent))
const nc = await connect({ servers: process.env["NATS_URL"] ?? "nats://127.0.0.1:4222", name: "example-project-job-events" })
const stop = () => void nc.drain().finally(() => process.exit(0))
process.once("SIGINT", stop)
process.once("SIGTERM", stop)

const consumer = await jetstream(nc).consumers.get(JOBS_STREAM.name, {
  // One filter string: nats-server 2.9 refuses a list of filters.
  filter_subjects: jobSubject.within(projectId),
  // All: the retained history first; DeliverPolicy.New would show only what happens from now on.
  deliver_policy: DeliverPolicy.All
})

// Folding the events gives the same document the job read model holds.
const views = new Map<string, JobView | null>()
for await (const m of await consumer.consume()) {
  const jobId = Option.match(jobSubject.parse(m.subject), { onNone: () => "?", onSome: (ids) => ids.jobId })
  const event = decodeJobEvent(m.string())
  if (event._tag === "None") {
    console.log(`${m.seq} ${jobId} (undecodable message skipped)`)
    continue
  }
  const view = evolveJobView(views.get(jobId) ?? null, event.value, m.seq)
  views.set(jobId, view)
  console.log(`${m.seq} ${jobId} ${event.value._tag} -> ${view?.status ?? "?"} ${view?.progress ?? 0}%`)
}
