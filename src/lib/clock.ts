/** Time is passed in, never read from a global, so expiry is tested by moving a clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
