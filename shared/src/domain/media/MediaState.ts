// A media's state: the MediaResolved that describes it (null before); a media never changes after it was resolved.
import type { Evolver } from "../Decider.ts"
import type { MediaEvent, MediaResolved } from "./MediaEvent.ts"

export type MediaState = MediaResolved | null

export const evolveMedia = (_state: MediaState, event: MediaEvent): MediaState => {
  switch (event._tag) {
    case "MediaResolved":
      return event
  }
}

export const MediaFold: Evolver<MediaEvent, MediaState> = { initialState: () => null, evolve: evolveMedia }
