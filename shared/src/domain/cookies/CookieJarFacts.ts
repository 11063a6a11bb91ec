// The cookie jars' door: a project's cookie file uploaded, rotated or removed (metadata only), once per change.
import { factRecorder } from "../../eventstore/FactRecorder.ts"
import { cookieJarSubject } from "../../eventstore/Subjects.ts"
import { CookieJarEvent } from "./CookieJarEvent.ts"

const recordChange = factRecorder({
  codec: CookieJarEvent,
  msgId: (event) => `${event._tag}:${event.projectId}:${event.platform}:${event.at}`
})

export const recordCookieJarChange = (event: CookieJarEvent) => recordChange(cookieJarSubject(event.projectId, event.platform), event)
