// The media facts' doors: a resolve's MediaResolved, one subject per media id, recorded once per id, and read back.
import { replayAggregate } from "../../eventstore/CommandHandler.ts"
import { factRecorder, factsOf } from "../../eventstore/FactRecorder.ts"
import { mediaSubject } from "../../nats/Subjects.ts"
import { MediaEvent } from "../../domain/media/MediaEvent.ts"
import { MediaFold } from "../../domain/media/MediaState.ts"

/** `recordMedia(mediaId)(event)`: a media id names its one MediaResolved. */
export const recordMedia = factsOf(factRecorder({ codec: MediaEvent, msgId: (event) => event.mediaId }), mediaSubject)

/** The media as resolved (null: never, or no longer kept); its one event is its whole state. */
export const currentMedia = (mediaId: string) => replayAggregate(MediaFold, MediaEvent, mediaSubject(mediaId), { last: true })
