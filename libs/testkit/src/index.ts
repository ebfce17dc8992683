export * from './three-step-saga.js';
export * from './three-step-worker.js';
