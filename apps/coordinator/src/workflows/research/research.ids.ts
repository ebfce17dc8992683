import { type TimerInput, tryKey } from '@openpaw/saga';

/** The research run's command keys and timer names (built on libs/saga's: `tryKey`, the run deadline). */

export const TITLE_KEY = 'title';
/** The title command of the `round`th prompt: `title`, then `title:2`, ... (a new command id per edited prompt). */
export const titleKey = (round: number | undefined): string => (round === undefined || round <= 1 ? TITLE_KEY : `${TITLE_KEY}:${round}`);
const legStep = (index: number) => `leg:${index}` as const;
/** The effect key (and so the command id) of a leg's command: `leg:<index>:<round>`. */
export const legKey = (index: number, round: number): string => tryKey(legStep(index), round);
export const synthesisKey = (round: number): string => tryKey('synthesis', round);
/** A leg's hard cap, from its pickup: `legcap:<index>:<round>` (the timer family is `legcap`). */
export const LEG_CAP_TIMER = 'legcap';
export const legCapTimer = (index: number, round: number): string => `${LEG_CAP_TIMER}:${index}:${round}`;

/** The phase deadline timer's payload: a timer of an earlier phase is stale. */
export interface DeadlinePayload {
  readonly phase: 'legs' | 'synthesis';
  readonly round: number;
}

export function isDeadlineOf(timer: TimerInput, phase: DeadlinePayload['phase'], round: number): boolean {
  return timer.payload['phase'] === phase && timer.payload['round'] === round;
}
