/**
 * Generated from apps/coordinator/workflow-tables.json by `npm run api:generate`. Do not edit.
 */
import type { WorkflowTable } from '../diagram/workflow-table.js';

export const WORKFLOW_TABLES: readonly WorkflowTable[] = [
  {
    "type": "retrieve_or_generate",
    "states": [
      "INITIATED",
      "INGESTING",
      "AWAITING_READING_CONFIRMATION",
      "RETRIEVING",
      "GENERATING_SOLUTION",
      "REGISTERING",
      "INDEXING",
      "SUCCEEDED",
      "FAILED",
      "CANCELLED"
    ],
    "initial": "INITIATED",
    "terminal": [
      "SUCCEEDED",
      "FAILED",
      "CANCELLED"
    ],
    "cancelledState": "CANCELLED",
    "transitions": {
      "INITIATED": [
        "INGESTING",
        "CANCELLED"
      ],
      "INGESTING": [
        "RETRIEVING",
        "FAILED",
        "AWAITING_READING_CONFIRMATION",
        "CANCELLED"
      ],
      "AWAITING_READING_CONFIRMATION": [
        "INGESTING",
        "FAILED",
        "CANCELLED"
      ],
      "RETRIEVING": [
        "SUCCEEDED",
        "GENERATING_SOLUTION",
        "FAILED",
        "CANCELLED"
      ],
      "GENERATING_SOLUTION": [
        "REGISTERING",
        "FAILED",
        "SUCCEEDED",
        "CANCELLED"
      ],
      "REGISTERING": [
        "INDEXING",
        "FAILED"
      ],
      "INDEXING": [
        "SUCCEEDED",
        "FAILED"
      ]
    }
  },
  {
    "type": "solve_workflow",
    "states": [
      "INITIATED",
      "GENERATING",
      "SUCCEEDED",
      "FAILED",
      "CANCELLED"
    ],
    "initial": "INITIATED",
    "terminal": [
      "SUCCEEDED",
      "FAILED",
      "CANCELLED"
    ],
    "cancelledState": "CANCELLED",
    "transitions": {
      "INITIATED": [
        "GENERATING",
        "CANCELLED"
      ],
      "GENERATING": [
        "SUCCEEDED",
        "FAILED",
        "CANCELLED"
      ]
    }
  },
  {
    "type": "video_workflow",
    "states": [
      "INITIATED",
      "RENDERING",
      "SUCCEEDED",
      "FAILED",
      "CANCELLED"
    ],
    "initial": "INITIATED",
    "terminal": [
      "SUCCEEDED",
      "FAILED",
      "CANCELLED"
    ],
    "cancelledState": "CANCELLED",
    "transitions": {
      "INITIATED": [
        "RENDERING",
        "CANCELLED"
      ],
      "RENDERING": [
        "SUCCEEDED",
        "FAILED",
        "CANCELLED"
      ]
    }
  },
  {
    "type": "reindex_asset",
    "states": [
      "INITIATED",
      "INDEXING",
      "SUCCEEDED",
      "FAILED"
    ],
    "initial": "INITIATED",
    "terminal": [
      "SUCCEEDED",
      "FAILED"
    ],
    "cancelledState": null,
    "transitions": {
      "INITIATED": [
        "INDEXING"
      ],
      "INDEXING": [
        "SUCCEEDED",
        "FAILED"
      ]
    }
  },
  {
    "type": "artifact_job",
    "states": [
      "pending",
      "planning",
      "generating",
      "validating",
      "completed",
      "failed"
    ],
    "initial": "pending",
    "terminal": [
      "completed",
      "failed"
    ],
    "cancelledState": null,
    "transitions": {
      "pending": [
        "planning",
        "failed"
      ],
      "planning": [
        "generating",
        "failed"
      ],
      "generating": [
        "validating",
        "pending",
        "failed"
      ],
      "validating": [
        "completed",
        "pending",
        "failed"
      ]
    }
  },
  {
    "type": "paper_search",
    "states": [
      "INITIATED",
      "PARSING_INTENT",
      "BUILDING_STRATEGY",
      "AWAITING_STRATEGY_CONFIRMATION",
      "SEARCHING",
      "DEDUPLICATING",
      "SCORING",
      "ORGANISING",
      "AWAITING_RESULT_REVIEW",
      "COMPLETED",
      "FAILED",
      "CANCELLED"
    ],
    "initial": "INITIATED",
    "terminal": [
      "COMPLETED",
      "FAILED",
      "CANCELLED"
    ],
    "cancelledState": "CANCELLED",
    "transitions": {
      "INITIATED": [
        "PARSING_INTENT",
        "CANCELLED"
      ],
      "PARSING_INTENT": [
        "BUILDING_STRATEGY",
        "FAILED",
        "CANCELLED"
      ],
      "BUILDING_STRATEGY": [
        "AWAITING_STRATEGY_CONFIRMATION",
        "SEARCHING",
        "FAILED",
        "CANCELLED"
      ],
      "AWAITING_STRATEGY_CONFIRMATION": [
        "SEARCHING",
        "BUILDING_STRATEGY",
        "COMPLETED",
        "CANCELLED"
      ],
      "SEARCHING": [
        "DEDUPLICATING",
        "FAILED",
        "CANCELLED"
      ],
      "DEDUPLICATING": [
        "SCORING",
        "FAILED",
        "CANCELLED"
      ],
      "SCORING": [
        "ORGANISING",
        "FAILED",
        "CANCELLED"
      ],
      "ORGANISING": [
        "AWAITING_RESULT_REVIEW",
        "COMPLETED",
        "FAILED",
        "CANCELLED"
      ],
      "AWAITING_RESULT_REVIEW": [
        "COMPLETED",
        "BUILDING_STRATEGY",
        "CANCELLED"
      ]
    }
  },
  {
    "type": "visual_degrees",
    "states": [
      "INITIALIZING",
      "DIRECT_EDGE",
      "DISCOVERING",
      "SELECTING",
      "VERIFYING",
      "BRIDGING",
      "SUCCEEDED",
      "FAILED",
      "CANCELLED"
    ],
    "initial": "INITIALIZING",
    "terminal": [
      "SUCCEEDED",
      "FAILED",
      "CANCELLED"
    ],
    "cancelledState": "CANCELLED",
    "transitions": {
      "INITIALIZING": [
        "DIRECT_EDGE",
        "FAILED",
        "CANCELLED"
      ],
      "DIRECT_EDGE": [
        "SUCCEEDED",
        "DISCOVERING",
        "FAILED",
        "CANCELLED"
      ],
      "DISCOVERING": [
        "SELECTING",
        "FAILED",
        "CANCELLED"
      ],
      "SELECTING": [
        "VERIFYING",
        "FAILED",
        "DISCOVERING",
        "CANCELLED"
      ],
      "VERIFYING": [
        "BRIDGING",
        "SUCCEEDED",
        "FAILED",
        "SELECTING",
        "DISCOVERING",
        "CANCELLED"
      ],
      "BRIDGING": [
        "SUCCEEDED",
        "DISCOVERING",
        "FAILED",
        "CANCELLED"
      ]
    }
  },
  {
    "type": "research",
    "states": [
      "draft",
      "processing",
      "retrying",
      "synthesizing",
      "awaiting_confirmation",
      "completed",
      "failed"
    ],
    "initial": "draft",
    "terminal": [
      "completed",
      "failed"
    ],
    "cancelledState": "failed",
    "transitions": {
      "draft": [
        "processing",
        "failed"
      ],
      "processing": [
        "synthesizing",
        "completed",
        "awaiting_confirmation",
        "failed"
      ],
      "retrying": [
        "processing",
        "synthesizing",
        "completed",
        "awaiting_confirmation",
        "failed"
      ],
      "synthesizing": [
        "completed",
        "failed"
      ],
      "awaiting_confirmation": [
        "synthesizing",
        "completed",
        "failed",
        "retrying"
      ],
      "failed": [
        "retrying",
        "synthesizing",
        "completed"
      ]
    }
  }
];
