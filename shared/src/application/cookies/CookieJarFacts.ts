// The cookie jars' doors: a project's cookie file uploaded, rotated or removed (metadata only), once per change; and the
// project's files read back.
import { replayAggregate } from "../../eventstore/CommandHandler.ts"
import { factRecorder } from "../../eventstore/FactRecorder.ts"
import { cookieJarSubject } from "../../nats/Subjects.ts"
import { CookieJarEvent } from "../../domain/cookies/CookieJarEvent.ts"
import { CookieJarsFold } from "../../domain/cookies/CookieJars.ts"

const recordChange = factRecorder({
  codec: CookieJarEvent,
  msgId: (event) => `${event._tag}:${event.projectId}:${event.platform}:${event.at}`
})

export const recordCookieJarChange = (event: CookieJarEvent) => recordChange(cookieJarSubject(event.projectId, event.platform), event)

/** The project's stored files by platform: the facts of every platform's subject of the project, folded. */
export const currentCookieJars = (projectId: string) => replayAggregate(CookieJarsFold, CookieJarEvent, cookieJarSubject.within(projectId))
