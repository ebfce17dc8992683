/**
 * Message validations (zod parses of a message's data against its contract) done by this process:
 * the message budget counts them per saga step (a validation is the costliest per-message CPU).
 * A plain counter, read by tests and exported as a metric; never reset by this lib.
 */
export const messageValidations = { count: 0 };
