// The extractor fleet's yt-dlp release: record the operator's choice, and show what every extractor runs.
import { recordReleaseChoice } from "@mds/shared/application/release/ReleaseFacts"
import { fleetStatusOf } from "@mds/shared/domain/release/YtDlpFleetStatus"
import { YtDlpReleaseChosen, YtDlpWorkerEvent } from "@mds/shared/domain/release/YtDlpReleaseEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { YT_DLP_CHOICE_SUBJECT, ytDlpWorkerSubject } from "@mds/shared/nats/Subjects"
import { Effect, Option } from "effect"
import type { ExtractorsStatusCommand, UseYtDlpReleaseCommand } from "./AdminCommand.ts"

/** Prints nothing: the extractors report on their own (see `extractors status`). */
export const useYtDlpRelease = Effect.fn("useYtDlpRelease")(function* (command: typeof UseYtDlpReleaseCommand.Type) {
  yield* recordReleaseChoice({ _tag: "YtDlpReleaseChosen", v: 1, choice: command.choice, at: Date.now() })
  return `extractors will use ${command.choice}`
})

/** One line for the fleet's choice, then one per extractor: id, version, last change, when, and a rejection's reason. */
export const extractorsStatus = Effect.fn("extractorsStatus")(function* (_command: typeof ExtractorsStatusCommand.Type) {
  const store = yield* EventStore
  const choice = yield* store.readLast(YtDlpReleaseChosen, YT_DLP_CHOICE_SUBJECT)
  const reports = yield* store.readSubject(YtDlpWorkerEvent, ytDlpWorkerSubject.all)
  const lines = [
    `choice: ${Option.match(choice, { onNone: () => "none (each extractor runs its built-in release, or YT_DLP_AUTO_UPDATE's channel)", onSome: (c) => `${c.event.choice} (since ${new Date(c.event.at).toISOString()})` })}`
  ]
  for (const worker of fleetStatusOf(
    reports.map((stored) => stored.event),
    Date.now()
  )) {
    lines.push(
      [
        worker.workerId,
        worker.version,
        worker.lastChange,
        new Date(worker.at).toISOString(),
        ...(worker.reason === null ? [] : [worker.reason])
      ].join("\t")
    )
  }
  return lines.join("\n")
})
