// The media facts' door: a resolve's MediaResolved, one subject per media id, recorded once per id.
import { factRecorder, factsOf } from "../../eventstore/FactRecorder.ts"
import { mediaSubject } from "../../eventstore/Subjects.ts"
import { MediaEvent } from "./MediaEvent.ts"

/** `recordMedia(mediaId)(event)`: a media id names its one MediaResolved. */
export const recordMedia = factsOf(factRecorder({ codec: MediaEvent, msgId: (event) => event.mediaId }), mediaSubject)
