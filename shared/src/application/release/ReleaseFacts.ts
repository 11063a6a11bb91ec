// The yt-dlp release facts' door: the operator's choice for the fleet, and what each extractor did with it.
import { factRecorder } from "../../eventstore/FactRecorder.ts"
import { YT_DLP_CHOICE_SUBJECT, ytDlpWorkerSubject } from "../../nats/Subjects.ts"
import { YtDlpReleaseChosen, YtDlpWorkerEvent } from "../../domain/release/YtDlpReleaseEvent.ts"

/** Every choice is news, even one equal to an earlier (the operator chose again): one id per call. */
const recordChoice = factRecorder({ codec: YtDlpReleaseChosen, msgId: (_choice, invocation) => invocation() })
export const recordReleaseChoice = (choice: YtDlpReleaseChosen) => recordChoice(YT_DLP_CHOICE_SUBJECT, choice)

/** Every report is news (the same release running again after a restart): one id per call. */
const recordReport = factRecorder({ codec: YtDlpWorkerEvent, msgId: (_report, invocation) => invocation() })
export const recordWorkerReport = (workerId: string) => (report: YtDlpWorkerEvent) => recordReport(ytDlpWorkerSubject(workerId), report)
