import { TakeDownVisualPerson, VisualPersonTakenDown } from '@openpaw/contracts';

/** What an operator sends: the command's fields but `requestedBy`, which is the caller's own user id. */
export const visualTakedownBody = TakeDownVisualPerson.schema.omit({ requestedBy: true }).strict();

/** What the service reported (`VisualPersonTakenDown`), without the command id it answered. */
export const visualTakedownResponse = VisualPersonTakenDown.schema.omit({ commandId: true });
