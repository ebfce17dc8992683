/**
 * How many times CI's sizes a node-loss run uses (`OPENPAW_NODE_LOSS_SCALE`, default 1): the runs per
 * workflow and scenario, and the time each scenario may take, grow with it. CI runs the short variant;
 * the longer one is the same specs with a larger scale (bench/README.md, "Node loss, longer").
 */
export function nodeLossScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['OPENPAW_NODE_LOSS_SCALE'];
  if (raw === undefined || raw === '') return 1;
  const scale = Number(raw);
  if (!Number.isInteger(scale) || scale < 1 || scale > 20) throw new Error(`OPENPAW_NODE_LOSS_SCALE: "${raw}" is not a whole number from 1 to 20`);
  return scale;
}
