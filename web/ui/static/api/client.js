// Generated from the procedure registry by `python -m server.ui_client --write web/ui/static/api/client.js`: do not edit.
// tests/unit/web/test_ui_client.py fails when this file differs from a fresh generation.
import { query, mutate } from "../api.js";

/** @typedef {{idempotencyKey?: string, signal?: AbortSignal}} MutationOptions */

/** @typedef {{signal?: AbortSignal}} QueryOptions */

/**
 * @typedef {Object} Action
 * @property {"archive_item" | "assign_person" | "call_webhook" | "create_action" | "create_item" | "create_subitem" | "move_item" | "send_email" | "send_notification" | "set_value"} type
 * @property {Object<string, any>} [config]
 */

/**
 * @typedef {Object} ActionIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} ActionsBoardInput
 * @property {string} boardId - 1 to 64 characters
 */

/**
 * @typedef {Object} AddWorkspaceMemberInput
 * @property {string} workspaceId - 1 to 64 characters
 * @property {string} userId - 1 to 64 characters
 * @property {"admin" | "member"} [role]
 */

/**
 * @typedef {Object} AlertIdInput
 * @property {string} alertId - 1 to 64 characters
 */

/**
 * @typedef {Object} AlertsInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string | null} [kpiId] - 1 to 64 characters
 * @property {"acknowledged" | "active" | "resolved" | null} [status]
 * @property {number | null} [limit]
 * @property {string | null} [cursor] - at most 512 characters
 */

/**
 * @typedef {Object} ApiKeyIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} ApplyInput
 * @property {string} templateId - 1 to 64 characters
 * @property {string} projectId - 1 to 64 characters
 * @property {string} boardName - 1 to 100 characters
 * @property {Overrides | null} [overrides]
 */

/**
 * @typedef {Object} ApprovalsIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} AuditsBoardInput
 * @property {string} boardId - 1 to 64 characters
 */

/**
 * @typedef {Object} AuditsIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} AutomationsBoardInput
 * @property {string} boardId - 1 to 64 characters
 */

/**
 * @typedef {Object} AutomationsCreateInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} name - 1 to 255 characters
 * @property {Trigger} trigger
 * @property {Action[]} actions - 1 to 20 items
 * @property {Condition[]} [conditions] - at most 20 items
 * @property {boolean} [enabled]
 */

/**
 * @typedef {Object} AutomationsHistoryInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string | null} [ruleId] - 1 to 64 characters
 * @property {"failure" | "partial_failure" | "skipped" | "success" | null} [status]
 * @property {number | null} [limit]
 * @property {string | null} [cursor] - at most 512 characters
 */

/**
 * @typedef {Object} AutomationsIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} AutomationsUpdateInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [name] - 1 to 255 characters
 * @property {boolean | null} [enabled]
 * @property {Trigger | null} [trigger]
 * @property {Condition[] | null} [conditions] - at most 20 items
 * @property {Action[] | null} [actions] - 1 to 20 items
 */

/**
 * One colour's range: closed at both ends, open-ended where a bound is missing.
 * @typedef {Object} Band
 * @property {number | null} [min] - -1000000000000000 to 1000000000000000
 * @property {number | null} [max] - -1000000000000000 to 1000000000000000
 */

/**
 * @typedef {Object} BatchEntry
 * @property {string} kpiId - 1 to 64 characters
 * @property {number} value - -1000000000000000 to 1000000000000000
 * @property {string | null} [comment] - at most 2000 characters
 */

/**
 * @typedef {Object} BatchSetValuesInput
 * @property {BatchEntry[]} entries - 1 to 100 items
 */

/**
 * @typedef {Object} BoardIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} BulkDeleteInput
 * @property {string[]} itemIds - 1 to 100 items; each 1 to 64 characters
 */

/**
 * @typedef {Object} BulkUpdateInput
 * @property {string[]} itemIds - 1 to 100 items; each 1 to 64 characters
 * @property {Object<string, any>} changes - at least 1 property
 */

/**
 * @typedef {Object} ByActionInput
 * @property {string} actionId - 1 to 64 characters
 */

/**
 * @typedef {Object} CheckEmailInput
 * @property {string} email - at most 254 characters; matches `^[^@\s]+@[^@\s]+\.[^@\s]+$`
 */

/**
 * @typedef {Object} ChecklistItemInput
 * @property {string} question - 1 to 489 characters
 * @property {"set_in_order" | "shine" | "sort" | "standardize" | "sustain"} category
 * @property {number} [maxScore] - 1 to 100
 */

/**
 * @typedef {Object} ChecklistsBoardInput
 * @property {string} boardId - 1 to 64 characters
 */

/**
 * @typedef {Object} ChecklistsCompleteInput
 * @property {string} checklistId - 1 to 64 characters
 * @property {Response[]} responses - 1 to 100 items
 */

/**
 * @typedef {Object} ChecklistsCreateInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} name - 1 to 200 characters
 * @property {"daily" | "monthly" | "shift" | "weekly"} frequency
 * @property {ItemInput[]} items - 1 to 100 items
 * @property {string | null} [description] - at most 2000 characters
 * @property {string[]} [assigneeIds] - at most 100 items; each 1 to 64 characters
 * @property {number} [deadlineHour] - 0 to 23
 */

/**
 * @typedef {Object} ChecklistsHistoryInput
 * @property {string} checklistId - 1 to 64 characters
 * @property {string | null} [startDate]
 * @property {string | null} [endDate]
 * @property {number | null} [limit]
 * @property {number | null} [offset]
 */

/**
 * @typedef {Object} ChecklistsIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} ChecklistsListInput
 * @property {string} boardId - 1 to 64 characters
 * @property {boolean | null} [isActive]
 */

/**
 * @typedef {Object} ChecklistsUpdateInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [name] - 1 to 200 characters
 * @property {string | null} [description] - at most 2000 characters
 * @property {"daily" | "monthly" | "shift" | "weekly" | null} [frequency]
 * @property {ItemInput[] | null} [items] - 1 to 100 items
 * @property {string[] | null} [assigneeIds] - at most 100 items; each 1 to 64 characters
 * @property {number | null} [deadlineHour] - 0 to 23
 * @property {boolean | null} [isActive]
 */

/**
 * @typedef {Object} CheckoutInput
 * @property {"business" | "enterprise" | "starter"} plan
 * @property {"annual" | "monthly"} interval
 * @property {string} successUrl - at most 2000 characters; matches `^https?://[^\s]+$`
 * @property {string} cancelUrl - at most 2000 characters; matches `^https?://[^\s]+$`
 * @property {number | null} [seats] - 1 to 100000
 */

/**
 * @typedef {Object} Choice
 * @property {string} label - at most 500 characters
 * @property {string} value - 1 to 500 characters
 */

/**
 * @typedef {Object} ChoiceData
 * @property {Choice[]} [values] - at most 500 items
 */

/**
 * @typedef {Object} ColumnIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} ColumnMapping
 * @property {number} csvIndex - at least 0; below 200
 * @property {"column" | "group" | "item_name" | "skip"} target
 * @property {string | null} [columnId] - 1 to 64 characters
 */

/**
 * @typedef {Object} CommentIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} Component
 * @property {"checkbox" | "date" | "datetime" | "email" | "file" | "number" | "phoneNumber" | "radio" | "select" | "textarea" | "textfield" | "url"} type
 * @property {string} key - matches `^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`
 * @property {string} [label] - at most 500 characters
 * @property {string | null} [description] - at most 2000 characters
 * @property {string | null} [placeholder] - at most 500 characters
 * @property {Validate} [validate]
 * @property {ChoiceData | null} [data]
 * @property {boolean} [multiple]
 */

/**
 * @typedef {Object} Condition
 * @property {string} columnId - 1 to 64 characters
 * @property {"contains" | "equals" | "gt" | "is" | "is_empty" | "is_not" | "is_not_empty" | "lt" | "not_contains"} operator
 * @property {any} [value]
 */

/**
 * `dueDate` is an ISO 8601 date (`2026-11-21`); `sourceType` None means `manual`.
 * @typedef {Object} CreateActionInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} title - 1 to 500 characters
 * @property {"critical" | "high" | "low" | "medium"} priority
 * @property {string} assigneeId - 1 to 64 characters
 * @property {string} dueDate - matches `^\d{4}-\d{2}-\d{2}$`
 * @property {string | null} [description] - at most 100000 characters
 * @property {"audit" | "gemba" | "kpi_breach" | "manual" | null} [sourceType]
 * @property {string | null} [sourceId] - 1 to 64 characters
 * @property {"cost" | "delivery" | "people" | "quality" | "safety" | null} [category]
 */

/**
 * @typedef {Object} CreateApiKeyInput
 * @property {string} name - 1 to 100 characters
 * @property {string[]} [scopes] - at most 9 items; each matches `^(read:items\|write:items\|read:actions\|write:actions\|read:kpis\|write:kpis\|read:members\|manage_settings\|manage_billing)$`
 * @property {string | null} [expiresAt]
 */

/**
 * @typedef {Object} CreateBoardInput
 * @property {string} projectId - 1 to 64 characters
 * @property {string} name - 1 to 100 characters
 * @property {"board" | "calendar" | "table" | "timeline" | "visual"} [defaultView]
 * @property {NewGroup[] | null} [groups] - at most 50 items
 * @property {NewColumn[] | null} [columns] - at most 100 items
 * @property {string | null} [templateId] - 1 to 64 characters
 */

/**
 * @typedef {Object} CreateChecklistInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} name - 1 to 200 characters
 * @property {string} type - 1 to 50 characters
 * @property {ChecklistItemInput[]} items - 1 to 100 items
 */

/**
 * @typedef {Object} CreateColumnInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} name - 1 to 100 characters
 * @property {"auto_number" | "checkbox" | "color" | "created_date" | "currency" | "date" | "date_range" | "dependency" | "dropdown" | "email" | "file" | "formula" | "label" | "last_updated" | "link" | "long_text" | "lookup" | "number" | "people" | "percentage" | "phone" | "priority" | "progress" | "rating" | "status" | "text" | "time_tracking" | "timeline" | "url"} type
 * @property {number | null} [position] - 0 to 1000000000000
 * @property {number} [width] - 40 to 2000
 * @property {boolean} [required]
 * @property {Object<string, any> | null} [config]
 * @property {any} [defaultValue]
 */

/**
 * @typedef {Object} CreateCommentInput
 * @property {string} itemId - 1 to 64 characters
 * @property {string} body - 1 to 10000 characters
 * @property {string | null} [parentId] - 1 to 64 characters
 * @property {string[]} [attachmentIds] - at most 20 items; each matches `^(att\|file)_[A-Za-z0-9]{1,60}$`
 */

/**
 * @typedef {Object} CreateDistributionInput
 * @property {string} formId - 1 to 64 characters
 * @property {Recipient[]} recipients - 1 to 500 items
 */

/**
 * @typedef {Object} CreateFlowInput
 * @property {string} formId - 1 to 64 characters
 * @property {string} name - 1 to 200 characters
 * @property {string | null} [description] - at most 2000 characters
 * @property {boolean} [gxpRequired]
 * @property {Node[] | null} [nodes] - at most 200 items
 * @property {Edge[] | null} [edges] - at most 400 items
 */

/**
 * @typedef {Object} CreateFormInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} name - 1 to 200 characters
 * @property {FormSchema} [schema]
 * @property {Mapping[]} [mappings] - at most 200 items
 * @property {FormSettings} [settings]
 * @property {string | null} [description] - at most 5000 characters
 * @property {string | null} [slug] - matches `^[A-Za-z0-9](?:[A-Za-z0-9-]{0,78}[A-Za-z0-9])?$`
 * @property {"closed" | "draft" | "published"} [status]
 */

/**
 * @typedef {Object} CreateGroupInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} name - 1 to 255 characters
 * @property {string | null} [color] - matches `^#[0-9A-Fa-f]{6}$`
 * @property {number | null} [position] - 0 to 1000000000000
 */

/**
 * @typedef {Object} CreateItemInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} groupId - 1 to 64 characters
 * @property {string} name - 1 to 500 characters
 * @property {string | null} [description] - at most 100000 characters
 * @property {number | null} [position] - 0 to 1000000000000
 * @property {Object<string, any>} [values]
 * @property {string | null} [parentId] - 1 to 64 characters
 * @property {string | null} [priority] - at most 100 characters
 */

/**
 * @typedef {Object} CreateMcpKeyInput
 * @property {string} name - 1 to 100 characters
 * @property {string[]} [allowedTools] - at most 500 items; each 1 to 100 characters
 * @property {string[]} [allowedResources] - at most 500 items; each matches `^obeya://(board\|kpi)/[A-Za-z0-9_-]{1,64}$`
 * @property {string | null} [expiresAt]
 */

/**
 * @typedef {Object} CreateOAuthAppInput
 * @property {string} name - 1 to 100 characters
 * @property {string[]} redirectUris - 1 to 10 items; each 1 to 2000 characters
 * @property {string[]} scopes - 1 to 5 items; each matches `^(read\|write\|delete\|admin\|webhooks)$`
 * @property {boolean} [public]
 */

/**
 * @typedef {Object} CreateProjectInput
 * @property {string} workspaceId - 1 to 64 characters
 * @property {string} name - 1 to 100 characters
 * @property {string | null} [description] - at most 2000 characters
 */

/**
 * @typedef {Object} CreateTokenInput
 * @property {string} name - 1 to 100 characters
 * @property {string[]} scopes - 1 to 5 items; each matches `^(read\|write\|delete\|admin\|webhooks)$`
 * @property {string | null} [expiresIn] - matches `^[1-9][0-9]{0,3}d$`
 */

/**
 * @typedef {Object} CreateWebhookInput
 * @property {string} url - at most 2048 characters
 * @property {string[]} events - 1 to 29 items; each matches `^(item\.created\|item\.updated\|item\.deleted\|item\.moved\|item\.commented\|kpi\.value_entered\|kpi\.target_breached\|kpi\.created\|kpi\.updated\|action\.created\|action\.updated\|action\.escalated\|action\.completed\|project\.created\|project\.deleted\|board\.created\|board\.updated\|board\.deleted\|member\.invited\|member\.joined\|member\.removed\|member\.role_changed\|form\.submitted\|form\.published\|meeting\.started\|meeting\.completed\|approval\.requested\|approval\.decided\|approval\.completed)$`
 * @property {string | null} [secret] - 1 to 256 characters
 * @property {string | null} [description] - at most 500 characters
 */

/**
 * @typedef {Object} CreateWorkspaceInput
 * @property {string} name - 1 to 100 characters
 * @property {string | null} [description] - at most 2000 characters
 * @property {string | null} [color] - matches `^#[0-9A-Fa-f]{6}$`
 * @property {string | null} [icon] - matches `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$`
 * @property {"closed" | "open"} [visibility]
 */

/**
 * `password` and `meaning` are required on GxP flows (the approver signs again).
 * @typedef {Object} DecisionInput
 * @property {string} requestId - 1 to 64 characters
 * @property {string} nodeId - 1 to 100 characters
 * @property {"approved" | "rejected" | "returned_for_revision"} decision
 * @property {string | null} [comment] - at most 5000 characters
 * @property {FieldModification[] | null} [fieldModifications] - at most 200 items
 * @property {string | null} [password] - 1 to 200 characters
 * @property {string | null} [meaning] - 1 to 200 characters
 */

/**
 * @typedef {Object} DeescalateInput
 * @property {string} id - 1 to 64 characters
 * @property {string} reason - 1 to 1000 characters
 */

/**
 * @typedef {Object} DefineInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} name - 1 to 200 characters
 * @property {"cost" | "delivery" | "people" | "quality" | "safety"} category
 * @property {"higher_is_better" | "lower_is_better"} direction
 * @property {"daily" | "monthly" | "quarterly" | "weekly"} frequency
 * @property {string | null} [unit] - 1 to 50 characters
 * @property {Thresholds | null} [thresholds]
 * @property {string | null} [responsibleUserId] - 1 to 64 characters
 */

/**
 * @typedef {Object} DeleteGroupInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [moveItemsTo] - 1 to 64 characters
 */

/**
 * @typedef {Object} DeliveriesInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 */

/**
 * @typedef {Object} DeviceTokenInput
 * @property {string} token - 1 to 4096 characters
 * @property {"android" | "ios"} platform
 */

/**
 * @typedef {Object} DisplaysCreateInput
 * @property {string} name - 1 to 100 characters
 * @property {string} boardId - 1 to 64 characters
 */

/**
 * @typedef {Object} DisplaysIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} DisplaysListInput
 * @property {string | null} [boardId] - 1 to 64 characters
 */

/**
 * @typedef {Object} DuplicateColumnInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [name] - 1 to 100 characters
 * @property {boolean} [includeValues]
 */

/**
 * A condition's two outgoing edges carry `label` "true" and "false".
 * @typedef {Object} Edge
 * @property {string} id - 1 to 100 characters
 * @property {string} source - 1 to 100 characters
 * @property {string} target - 1 to 100 characters
 * @property {string | null} [label]
 */

/**
 * Input of a procedure that takes none.
 * @typedef {Record<string, never>} EmptyInput
 */

/**
 * @typedef {Object} EscalateInput
 * @property {string} id - 1 to 64 characters
 * @property {string} reason - 1 to 1000 characters
 * @property {string} escalateToUserId - 1 to 64 characters
 */

/**
 * @typedef {Object} ExecuteInput
 * @property {string} importId - 1 to 64 characters
 * @property {boolean} [skipErrorRows]
 */

/**
 * @typedef {Object} ExportsBoardInput
 * @property {string} boardId - 1 to 64 characters
 */

/**
 * @typedef {Object} FeatureGateInput
 * @property {"advanced_permissions" | "api_access" | "audit_log" | "automations" | "boards" | "csv_import" | "custom_branding" | "kpis" | "seats" | "sso" | "templates" | "webhooks"} feature
 */

/**
 * @typedef {Object} FieldModification
 * @property {string} fieldId - 1 to 200 characters
 * @property {any} [newValue]
 */

/**
 * @typedef {Object} Filter
 * @property {string} columnId - 1 to 64 characters
 * @property {"contains" | "gt" | "gte" | "is" | "is_empty" | "is_not" | "is_not_empty" | "lt" | "lte" | "not_contains"} operator
 * @property {any} [value]
 */

/**
 * @typedef {Object} FocusInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [entry] - matches `^(kpis\|actions\|escalations)/[^/]{1,64}$`
 */

/**
 * @typedef {Object} FormDistributionFormIdInput
 * @property {string} formId - 1 to 64 characters
 */

/**
 * @typedef {Object} FormInput
 * @property {string} formId - 1 to 64 characters
 */

/**
 * @typedef {Object} FormSchema
 * @property {Component[]} [components] - at most 200 items
 */

/**
 * @typedef {Object} FormSettings
 * @property {string} [successMessage] - at most 2000 characters
 * @property {string | null} [redirectUrl] - at most 2048 characters
 * @property {string[]} [notifyOnSubmit] - at most 100 items; each 1 to 64 characters
 * @property {string | null} [groupId] - 1 to 64 characters
 * @property {boolean} [requireAuth]
 * @property {boolean} [allowMultiple]
 */

/**
 * @typedef {Object} FormsFormIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} GenerateActionsInput
 * @property {string} sessionId - 1 to 64 characters
 * @property {number} [threshold] - 1 to 5
 */

/**
 * @typedef {Object} ImportIdInput
 * @property {string} importId - 1 to 64 characters
 */

/**
 * @typedef {Object} ImportsHistoryInput
 * @property {string} boardId - 1 to 64 characters
 */

/**
 * @typedef {Object} InviteInput
 * @property {string} email - at most 254 characters; matches `^[^@\s]+@[^@\s]+\.[^@\s]+$`
 * @property {"admin" | "guest" | "member"} [role]
 * @property {string[]} [workspaceIds] - each 1 to 64 characters
 */

/**
 * @typedef {Object} ItemIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} ItemInput
 * @property {string} text - 1 to 500 characters
 * @property {boolean} [required]
 * @property {string | null} [id] - 1 to 64 characters
 */

/**
 * @typedef {Object} ItemsSetValueInput
 * @property {string} itemId - 1 to 64 characters
 * @property {string} columnId - 1 to 64 characters
 * @property {any} [value]
 * @property {number | null} [expectedVersion] - at least 1
 */

/**
 * @typedef {Object} KpiDataInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} startDate
 * @property {string} endDate
 */

/**
 * @typedef {Object} KpiIdInput
 * @property {string} kpiId - 1 to 64 characters
 */

/**
 * @typedef {Object} KpisBoardInput
 * @property {string} boardId - 1 to 64 characters
 */

/**
 * @typedef {Object} KpisHistoryInput
 * @property {string} kpiId - 1 to 64 characters
 * @property {string | null} [from] - at most 40 characters
 * @property {string | null} [to] - at most 40 characters
 * @property {number | null} [limit]
 */

/**
 * @typedef {Object} KpisIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} KpisListInput
 * @property {string} boardId - 1 to 64 characters
 * @property {number | null} [limit]
 * @property {string | null} [cursor] - at most 512 characters
 */

/**
 * @typedef {Object} KpisSetValueInput
 * @property {string} kpiId - 1 to 64 characters
 * @property {number} value - -1000000000000000 to 1000000000000000
 * @property {string | null} [comment] - at most 2000 characters
 */

/**
 * Fields left out stay; `unit`, `thresholds` and `responsibleUserId` are cleared with null.
 * @typedef {Object} KpisUpdateInput
 * @property {string} id - 1 to 64 characters
 * @property {string} [name] - 1 to 200 characters
 * @property {"cost" | "delivery" | "people" | "quality" | "safety"} [category]
 * @property {"higher_is_better" | "lower_is_better"} [direction]
 * @property {"daily" | "monthly" | "quarterly" | "weekly"} [frequency]
 * @property {string | null} [unit] - 1 to 50 characters
 * @property {Thresholds | null} [thresholds]
 * @property {string | null} [responsibleUserId] - 1 to 64 characters
 * @property {number | null} [expectedVersion] - at least 1
 */

/**
 * @typedef {Object} LinkInput
 * @property {string} sheetId - 1 to 64 characters
 * @property {string} actionId - 1 to 64 characters
 */

/**
 * @typedef {Object} ListActionsInput
 * @property {string} boardId - 1 to 64 characters
 * @property {"closed" | "completed" | "in_progress" | "open" | "verified" | null} [status]
 * @property {"critical" | "high" | "low" | "medium" | null} [priority]
 * @property {string | null} [assigneeId] - 1 to 64 characters
 * @property {"cost" | "delivery" | "people" | "quality" | "safety" | null} [category]
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 */

/**
 * @typedef {Object} ListAuditsInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string | null} [checklistId] - 1 to 64 characters
 * @property {"completed" | "in_progress" | null} [status]
 * @property {number | null} [limit]
 * @property {number | null} [offset]
 */

/**
 * @typedef {Object} ListBoardsInput
 * @property {string} projectId - 1 to 64 characters
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 */

/**
 * @typedef {Object} ListByEntityInput
 * @property {string} entityType - 1 to 64 characters
 * @property {string} entityId - 1 to 64 characters
 * @property {number | null} [limit]
 * @property {string | null} [cursor] - at most 512 characters
 */

/**
 * @typedef {Object} ListByOrgInput
 * @property {number | null} [limit]
 * @property {string | null} [cursor] - at most 512 characters
 */

/**
 * @typedef {Object} ListColumnsInput
 * @property {string} boardId - 1 to 64 characters
 */

/**
 * @typedef {Object} ListCommentsInput
 * @property {string} itemId - 1 to 64 characters
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 */

/**
 * @typedef {Object} ListEventsInput
 * @property {string} stream - 1 to 100 characters
 * @property {number} [since] - at least 0
 * @property {number | null} [limit]
 * @property {string | null} [cursor] - at most 512 characters
 */

/**
 * @typedef {Object} ListFormsInput
 * @property {string} boardId - 1 to 64 characters
 */

/**
 * @typedef {Object} ListItemsInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string | null} [groupId] - 1 to 64 characters
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 * @property {string | null} [sortBy] - 1 to 64 characters
 * @property {"asc" | "desc"} [sortDir]
 * @property {Filter[]} [filters] - at most 20 items
 * @property {boolean} [includeArchived]
 */

/**
 * @typedef {Object} ListMembersInput
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 * @property {string | null} [search] - at most 200 characters
 * @property {"admin" | "guest" | "member" | "owner" | null} [role]
 * @property {"active" | "deactivated" | "pending" | null} [status]
 */

/**
 * @typedef {Object} ListNotificationsInput
 * @property {number | null} [limit]
 * @property {string | null} [cursor] - at most 512 characters
 */

/**
 * @typedef {Object} ListProjectsInput
 * @property {string} workspaceId - 1 to 64 characters
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 */

/**
 * @typedef {Object} ListSubmissionsInput
 * @property {string} formId - 1 to 64 characters
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 * @property {"archived" | "new" | "reviewed" | null} [status]
 */

/**
 * @typedef {Object} ListWorkspacesInput
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 * @property {string | null} [search] - at most 100 characters
 * @property {boolean} [includeArchived]
 */

/**
 * @typedef {Object} LogInput
 * @property {string} automationId - 1 to 64 characters
 * @property {number | null} [limit]
 * @property {string | null} [cursor] - at most 512 characters
 */

/**
 * @typedef {Object} MapColumnsInput
 * @property {string} importId - 1 to 64 characters
 * @property {ColumnMapping[]} mappings - 1 to 200 items
 * @property {string | null} [groupId] - 1 to 64 characters
 * @property {boolean} [skipFirstRow]
 * @property {"DD-MM-YYYY" | "DD.MM.YYYY" | "DD/MM/YYYY" | "MM-DD-YYYY" | "MM/DD/YYYY" | "YYYY-MM-DD" | "YYYY/MM/DD"} [dateFormat]
 */

/**
 * Answer `formField` goes to the item's name, description, or column `columnId` (null for the first two).
 * @typedef {Object} Mapping
 * @property {string} formField - matches `^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`
 * @property {"column" | "item_description" | "item_name"} target
 * @property {string | null} [columnId] - 1 to 64 characters
 */

/**
 * @typedef {Object} MarkDiscussedInput
 * @property {string} id - 1 to 64 characters
 * @property {string} entry - matches `^(kpis\|actions\|escalations)/[^/]{1,64}$`
 * @property {boolean} [discussed]
 */

/**
 * @typedef {Object} McpKeyIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} MeetingsCompleteInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [notes] - at most 10000 characters
 */

/**
 * @typedef {Object} MeetingsIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} MeetingsListInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 */

/**
 * @typedef {Object} Milestone
 * @property {number} value - -1000000000000000 to 1000000000000000
 * @property {string} deadline
 */

/**
 * @typedef {Object} MoveItemInput
 * @property {string} id - 1 to 64 characters
 * @property {string} groupId - 1 to 64 characters
 * @property {number | null} [position] - 0 to 1000000000000
 * @property {string | null} [boardId] - 1 to 64 characters
 * @property {number | null} [expectedVersion] - at least 1
 */

/**
 * @typedef {Object} NewColumn
 * @property {string} name - 1 to 100 characters
 * @property {"auto_number" | "checkbox" | "color" | "created_date" | "currency" | "date" | "date_range" | "dependency" | "dropdown" | "email" | "file" | "formula" | "label" | "last_updated" | "link" | "long_text" | "lookup" | "number" | "people" | "percentage" | "phone" | "priority" | "progress" | "rating" | "status" | "text" | "time_tracking" | "timeline" | "url"} type
 * @property {Object<string, any> | null} [config]
 */

/**
 * @typedef {Object} NewGroup
 * @property {string} name - 1 to 255 characters
 * @property {string | null} [color] - matches `^#[0-9A-Fa-f]{6}$`
 */

/**
 * `data` by type: approval {approverIds, approvalType any|all, expiresInHours?}; condition {field, operator, value}; action {type, config} as an automation action; end {status approved|rejected}.
 * @typedef {Object} Node
 * @property {string} id - 1 to 100 characters
 * @property {"action" | "approval" | "condition" | "end" | "start"} type
 * @property {Position} [position]
 * @property {Object<string, any>} [data]
 */

/**
 * @typedef {Object} NotificationIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} OAuthAppIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} OrganizationActionsInput
 * @property {string} organizationId - 1 to 64 characters
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 */

/**
 * A partial override of a template's structure: each part given replaces the template's part whole; a part left out is the template's.
 * @typedef {Object} Overrides
 * @property {"board" | "calendar" | "table" | "timeline" | "visual" | null} [defaultView]
 * @property {TemplateGroup[] | null} [groups] - at most 50 items
 * @property {TemplateColumn[] | null} [columns] - at most 100 items
 * @property {TemplateKpi[] | null} [kpis] - at most 100 items
 * @property {TemplateAutomation[] | null} [automations] - at most 100 items
 */

/**
 * @typedef {Object} PinCommentInput
 * @property {string} id - 1 to 64 characters
 * @property {boolean} pinned
 */

/**
 * @typedef {Object} PortalInput
 * @property {string} returnUrl - at most 2000 characters; matches `^https?://[^\s]+$`
 */

/**
 * @typedef {Object} Position
 * @property {number} [x]
 * @property {number} [y]
 */

/**
 * @typedef {Object} ProblemSolvingCreateInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} title - 1 to 500 characters
 * @property {"five_whys" | "ishikawa" | "wwwhwwh"} type
 * @property {Object<string, any> | null} [data]
 */

/**
 * @typedef {Object} ProblemSolvingIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} ProblemSolvingListInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string | null} [actionId] - 1 to 64 characters
 * @property {"five_whys" | "ishikawa" | "wwwhwwh" | null} [type]
 * @property {"completed" | "draft" | "in_progress" | "reviewed" | null} [status]
 * @property {number | null} [limit]
 * @property {number | null} [offset]
 */

/**
 * @typedef {Object} ProblemSolvingUpdateInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [title] - 1 to 500 characters
 * @property {Object<string, any> | null} [data]
 */

/**
 * @typedef {Object} ProjectIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} RateInput
 * @property {string} checklistId - 1 to 64 characters
 * @property {string} startDate
 * @property {string} endDate
 */

/**
 * @typedef {Object} ReactInput
 * @property {string} commentId - 1 to 64 characters
 * @property {"check" | "eyes" | "heart" | "party" | "rocket" | "thinking" | "thumbsdown" | "thumbsup"} emoji
 */

/**
 * @typedef {Object} Recipient
 * @property {string} email - at most 254 characters; matches `^[^@\s]+@[^@\s]+\.[^@\s]+$`
 * @property {string | null} [name] - at most 200 characters
 */

/**
 * @typedef {Object} RemoveMemberInput
 * @property {string} userId - 1 to 64 characters
 * @property {string | null} [reassignTo] - 1 to 64 characters
 */

/**
 * @typedef {Object} RemoveWorkspaceMemberInput
 * @property {string} workspaceId - 1 to 64 characters
 * @property {string} userId - 1 to 64 characters
 */

/**
 * @typedef {Object} ReorderColumnsInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string[]} columnIds - at most 1000 items; each 1 to 64 characters
 */

/**
 * @typedef {Object} ReorderGroupsInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string[]} groupIds - at most 1000 items; each 1 to 64 characters
 */

/**
 * @typedef {Object} ReorderItemsInput
 * @property {string} groupId - 1 to 64 characters
 * @property {string[]} itemIds - 1 to 5000 items; each 1 to 64 characters
 */

/**
 * @typedef {Object} ReplayInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 */

/**
 * @typedef {Object} RepliesInput
 * @property {string} commentId - 1 to 64 characters
 * @property {string | null} [cursor] - at most 512 characters
 * @property {number | null} [limit]
 */

/**
 * @typedef {Object} RequestOtpInput
 * @property {string} formSlug - 1 to 120 characters
 * @property {string} organizationSlug - 1 to 100 characters
 * @property {string} email - at most 254 characters; matches `^[^@\s]+@[^@\s]+\.[^@\s]+$`
 * @property {string | null} [t] - 1 to 200 characters
 */

/**
 * @typedef {Object} RequestsInput
 * @property {string} flowId - 1 to 64 characters
 * @property {number} [page] - 1 to 1000000
 * @property {number} [pageSize] - 1 to 100
 * @property {"approved" | "expired" | "in_progress" | "pending" | "rejected" | null} [status]
 */

/**
 * @typedef {Object} Response
 * @property {string} itemId - 1 to 64 characters
 * @property {boolean} checked
 * @property {string | null} [comment] - at most 2000 characters
 */

/**
 * @typedef {Object} ReturnInput
 * @property {string} requestId - 1 to 64 characters
 * @property {string} comment - 1 to 5000 characters
 */

/**
 * @typedef {Object} ReviewInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [comment] - at most 2000 characters
 */

/**
 * @typedef {Object} RevokeTokenInput
 * @property {string} tokenId - 1 to 64 characters
 */

/**
 * @typedef {Object} RunNowInput
 * @property {string} ruleId - 1 to 64 characters
 */

/**
 * @typedef {Object} ScoreHistoryInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string | null} [checklistId] - 1 to 64 characters
 * @property {number | null} [limit]
 */

/**
 * @typedef {Object} ScoreInput
 * @property {string} itemId - 1 to 64 characters
 * @property {number} score - 0 to 100
 * @property {string | null} [comment] - at most 2000 characters
 * @property {string | null} [photoUrl] - at most 2048 characters; matches `^https?://\S+$`
 */

/**
 * @typedef {Object} SetTargetInput
 * @property {string} kpiId - 1 to 64 characters
 * @property {number} value - -1000000000000000 to 1000000000000000
 * @property {string} deadline
 * @property {Milestone[]} [milestones] - at most 50 items
 */

/**
 * forms.update's `settings`: the settings named change, the others stay (so that changing the success message does not quietly turn `requireAuth` off); `redirectUrl` and `groupId` may be set to null.
 * @typedef {Object} SettingsChange
 * @property {string} [successMessage] - at most 2000 characters
 * @property {string | null} [redirectUrl] - at most 2048 characters
 * @property {string[]} [notifyOnSubmit] - at most 100 items; each 1 to 64 characters
 * @property {string | null} [groupId] - 1 to 64 characters
 * @property {boolean} [requireAuth]
 * @property {boolean} [allowMultiple]
 */

/**
 * @typedef {Object} SheetInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} StartAuditInput
 * @property {string} boardId - 1 to 64 characters
 * @property {string} checklistId - 1 to 64 characters
 * @property {string | null} [date]
 */

/**
 * @typedef {Object} StartInput
 * @property {string} boardId - 1 to 64 characters
 * @property {number} tier - 1 to 5
 * @property {string[]} [attendeeIds] - at most 100 items; each 1 to 64 characters
 */

/**
 * @typedef {Object} StatusInput
 * @property {string} id - 1 to 64 characters
 * @property {"completed" | "draft" | "in_progress" | "reviewed"} status
 */

/**
 * @typedef {Object} SubmissionIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} SubmitScoreInput
 * @property {string} sessionId - 1 to 64 characters
 * @property {ScoreInput[]} scores - 1 to 100 items
 */

/**
 * @typedef {Object} TemplateAction
 * @property {string} type - 1 to 64 characters
 * @property {Object<string, any>} [config]
 */

/**
 * @typedef {Object} TemplateAutomation
 * @property {string} name - 1 to 255 characters
 * @property {TemplateTrigger} trigger
 * @property {TemplateAction[]} actions - 1 to 20 items
 * @property {TemplateCondition[]} [conditions] - at most 20 items
 * @property {boolean} [enabled]
 */

/**
 * @typedef {Object} TemplateColumn
 * @property {string} key - 1 to 64 characters
 * @property {string} name - 1 to 100 characters
 * @property {"auto_number" | "checkbox" | "color" | "created_date" | "currency" | "date" | "date_range" | "dependency" | "dropdown" | "email" | "file" | "formula" | "label" | "last_updated" | "link" | "long_text" | "lookup" | "number" | "people" | "percentage" | "phone" | "priority" | "progress" | "rating" | "status" | "text" | "time_tracking" | "timeline" | "url"} type
 * @property {Object<string, any> | null} [config]
 * @property {number} [width] - 40 to 2000
 * @property {boolean} [required]
 */

/**
 * @typedef {Object} TemplateCondition
 * @property {string} columnId - 1 to 64 characters
 * @property {"contains" | "equals" | "gt" | "is" | "is_empty" | "is_not" | "is_not_empty" | "lt" | "not_contains"} operator
 * @property {any} [value]
 */

/**
 * @typedef {Object} TemplateGroup
 * @property {string} key - 1 to 64 characters
 * @property {string} name - 1 to 255 characters
 * @property {string | null} [color] - matches `^#[0-9A-Fa-f]{6}$`
 */

/**
 * @typedef {Object} TemplateKpi
 * @property {string} name - 1 to 200 characters
 * @property {"cost" | "delivery" | "people" | "quality" | "safety"} category
 * @property {"higher_is_better" | "lower_is_better"} direction
 * @property {"daily" | "monthly" | "quarterly" | "weekly"} [frequency]
 * @property {string | null} [unit] - 1 to 50 characters
 * @property {Thresholds | null} [thresholds]
 * @property {TemplateTarget | null} [target]
 */

/**
 * A KPI's target; its deadline is `days` after the day the template is applied.
 * @typedef {Object} TemplateTarget
 * @property {number} value - -1000000000000000 to 1000000000000000
 * @property {number} [days] - 1 to 3660
 */

/**
 * @typedef {Object} TemplateTrigger
 * @property {string} type - 1 to 64 characters
 * @property {Object<string, any>} [config]
 */

/**
 * @typedef {Object} TemplatesCreateInput
 * @property {string} sourceBoardId - 1 to 64 characters
 * @property {string} name - 1 to 200 characters
 * @property {string | null} [description] - at most 2000 characters
 * @property {boolean} [includeKpis]
 * @property {boolean} [includeAutomations]
 * @property {string} [category] - 1 to 50 characters
 * @property {string[]} [tags] - at most 20 items; each 1 to 50 characters
 */

/**
 * @typedef {Object} TemplatesIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} TemplatesUpdateInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [name] - 1 to 200 characters
 * @property {string | null} [description] - at most 2000 characters
 */

/**
 * @typedef {Object} Thresholds
 * @property {Band | null} [green]
 * @property {Band | null} [amber]
 * @property {Band | null} [red]
 */

/**
 * @typedef {Object} ToggleInput
 * @property {string} id - 1 to 64 characters
 * @property {boolean} enabled
 */

/**
 * @typedef {Object} TokenDecisionInput
 * @property {string} token - 1 to 200 characters
 * @property {"approved" | "rejected" | "returned_for_revision"} decision
 * @property {string | null} [comment] - at most 5000 characters
 * @property {FieldModification[] | null} [fieldModifications] - at most 200 items
 * @property {string | null} [ipAddress] - at most 100 characters
 * @property {string | null} [userAgent] - at most 1000 characters
 */

/**
 * @typedef {Object} Trigger
 * @property {"date.arrived" | "form.submitted" | "item.created" | "item.moved" | "kpi.threshold_breach" | "recurring" | "subitems.completed" | "value.changed" | "webhook.received"} type
 * @property {Object<string, any>} [config]
 */

/**
 * Absent fields stay as they are; only `description` may be set to null (cleared).
 * @typedef {Object} UpdateActionInput
 * @property {string} id - 1 to 64 characters
 * @property {string} [title] - 1 to 500 characters
 * @property {string | null} [description] - at most 100000 characters
 * @property {"closed" | "completed" | "in_progress" | "open" | "verified"} [status]
 * @property {"critical" | "high" | "low" | "medium"} [priority]
 * @property {string} [assigneeId] - 1 to 64 characters
 * @property {string} [dueDate] - matches `^\d{4}-\d{2}-\d{2}$`
 * @property {number | null} [expectedVersion] - at least 1
 */

/**
 * @typedef {Object} UpdateBoardInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [name] - 1 to 100 characters
 * @property {"board" | "calendar" | "table" | "timeline" | "visual" | null} [defaultView]
 */

/**
 * @typedef {Object} UpdateColumnInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [name] - 1 to 100 characters
 * @property {Object<string, any> | null} [config]
 * @property {boolean | null} [required]
 * @property {number | null} [width] - 40 to 2000
 * @property {any} [defaultValue]
 * @property {string | null} [type]
 */

/**
 * @typedef {Object} UpdateCommentInput
 * @property {string} id - 1 to 64 characters
 * @property {string} body - 1 to 10000 characters
 */

/**
 * Only the given fields change.
 * @typedef {Object} UpdateFlowInput
 * @property {string} id - 1 to 64 characters
 * @property {string} [name] - 1 to 200 characters
 * @property {string | null} [description] - at most 2000 characters
 * @property {boolean} [gxpRequired]
 * @property {Node[]} [nodes] - at most 200 items
 * @property {Edge[]} [edges] - at most 400 items
 */

/**
 * Absent fields stay as they are; only `description` may be set to null (cleared); `settings` changes the settings it names.
 * @typedef {Object} UpdateFormInput
 * @property {string} id - 1 to 64 characters
 * @property {string} [name] - 1 to 200 characters
 * @property {string | null} [description] - at most 5000 characters
 * @property {string} [slug] - matches `^[A-Za-z0-9](?:[A-Za-z0-9-]{0,78}[A-Za-z0-9])?$`
 * @property {"closed" | "draft" | "published"} [status]
 * @property {FormSchema} [schema]
 * @property {Mapping[]} [mappings] - at most 200 items
 * @property {SettingsChange} [settings]
 */

/**
 * @typedef {Object} UpdateGroupInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [name] - 1 to 255 characters
 * @property {string | null} [color] - matches `^#[0-9A-Fa-f]{6}$`
 * @property {boolean | null} [collapsed]
 */

/**
 * @typedef {Object} UpdateItemInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [name] - 1 to 500 characters
 * @property {string | null} [description] - at most 100000 characters
 * @property {number | null} [expectedVersion] - at least 1
 */

/**
 * @typedef {Object} UpdateOAuthAppInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [name] - 1 to 100 characters
 * @property {string[] | null} [redirectUris] - 1 to 10 items; each 1 to 2000 characters
 * @property {string[] | null} [scopes] - 1 to 5 items; each matches `^(read\|write\|delete\|admin\|webhooks)$`
 */

/**
 * @typedef {Object} UpdateOrganizationInput
 * @property {string | null} [name] - 1 to 100 characters
 * @property {string | null} [timezone] - 1 to 64 characters
 * @property {"DD/MM/YYYY" | "MM/DD/YYYY" | "YYYY-MM-DD" | null} [dateFormat]
 * @property {"monday" | "saturday" | "sunday" | null} [weekStart]
 * @property {string | null} [language] - matches `^[a-z]{2}(-[A-Z]{2})?$`
 */

/**
 * @typedef {Object} UpdateProfileInput
 * @property {string | null} [name] - 2 to 100 characters
 * @property {string | null} [image] - at most 2048 characters
 */

/**
 * Absent fields stay as they are; `description` may be set to null to clear it.
 * @typedef {Object} UpdateProjectInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [name] - 1 to 100 characters
 * @property {string | null} [description] - at most 2000 characters
 */

/**
 * @typedef {Object} UpdateRoleInput
 * @property {string} userId - 1 to 64 characters
 * @property {"admin" | "guest" | "member" | "owner"} role
 */

/**
 * @typedef {Object} UpdateSsoConfigInput
 * @property {string} issuer - 1 to 500 characters
 * @property {string} clientId - 1 to 255 characters
 * @property {boolean} [enforce]
 * @property {string[]} [allowedDomains] - at most 100 items; each 1 to 253 characters
 * @property {string | null} [clientSecret] - 1 to 1000 characters
 */

/**
 * @typedef {Object} UpdateSubmissionInput
 * @property {string} id - 1 to 64 characters
 * @property {"archived" | "new" | "reviewed"} status
 */

/**
 * @typedef {Object} UpdateWebhookInput
 * @property {string} id - 1 to 64 characters
 * @property {string[] | null} [events] - 1 to 29 items; each matches `^(item\.created\|item\.updated\|item\.deleted\|item\.moved\|item\.commented\|kpi\.value_entered\|kpi\.target_breached\|kpi\.created\|kpi\.updated\|action\.created\|action\.updated\|action\.escalated\|action\.completed\|project\.created\|project\.deleted\|board\.created\|board\.updated\|board\.deleted\|member\.invited\|member\.joined\|member\.removed\|member\.role_changed\|form\.submitted\|form\.published\|meeting\.started\|meeting\.completed\|approval\.requested\|approval\.decided\|approval\.completed)$`
 * @property {boolean | null} [active]
 * @property {string | null} [url] - at most 2048 characters
 * @property {string | null} [description] - at most 500 characters
 */

/**
 * Absent fields stay as they are; `description` and `icon` may be set to null to clear them.
 * @typedef {Object} UpdateWorkspaceInput
 * @property {string} id - 1 to 64 characters
 * @property {string | null} [name] - 1 to 100 characters
 * @property {string | null} [description] - at most 2000 characters
 * @property {string | null} [color] - matches `^#[0-9A-Fa-f]{6}$`
 * @property {string | null} [icon] - matches `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$`
 * @property {"closed" | "open" | null} [visibility]
 */

/**
 * @typedef {Object} Validate
 * @property {boolean} [required]
 * @property {number | null} [minLength] - 0 to 100000
 * @property {number | null} [maxLength] - 1 to 100000
 * @property {number | null} [min]
 * @property {number | null} [max]
 */

/**
 * @typedef {Object} VerifyInput
 * @property {string} id - 1 to 64 characters
 * @property {boolean} verified
 * @property {string | null} [verificationNote] - at most 2000 characters
 */

/**
 * @typedef {Object} VerifyOtpInput
 * @property {string} formId - 1 to 64 characters
 * @property {string} email - at most 254 characters; matches `^[^@\s]+@[^@\s]+\.[^@\s]+$`
 * @property {string} code - matches `^[0-9]{6}$`
 */

/**
 * @typedef {Object} WebhookIdInput
 * @property {string} id - 1 to 64 characters
 */

/**
 * @typedef {Object} WorkspaceIdInput
 * @property {string} id - 1 to 64 characters
 */

export const api = Object.freeze({
  actions: {
    /**
     * Create an open action on a board and notify its assignee
     * @param {CreateActionInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("actions.create", input, options),
    /**
     * Return an escalated action to its previous level
     * @param {DeescalateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    deescalate: (input, options) => mutate("actions.deescalate", input, options),
    /**
     * Delete an action
     * @param {ActionIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("actions.delete", input, options),
    /**
     * Raise an action's escalation level by one and notify the person it is escalated to
     * @param {EscalateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    escalate: (input, options) => mutate("actions.escalate", input, options),
    /**
     * One action with its escalation history
     * @param {ActionIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getById: (input, options) => query("actions.getById", input, options),
    /**
     * Escalated actions across the boards the caller sees, earliest due first
     * @param {OrganizationActionsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getEscalated: (input, options) => query("actions.getEscalated", input, options),
    /**
     * Overdue actions across the boards the caller sees, earliest due first
     * @param {OrganizationActionsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getOverdue: (input, options) => query("actions.getOverdue", input, options),
    /**
     * Counts of a board's actions by status and priority, overdue, escalated, and the mean days to completion
     * @param {ActionsBoardInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getStats: (input, options) => query("actions.getStats", input, options),
    /**
     * A board's actions, newest first, with filters
     * @param {ListActionsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("actions.list", input, options),
    /**
     * Change an action's title, description, status, priority, assignee or due date
     * @param {UpdateActionInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("actions.update", input, options),
    /**
     * Verify a completed action, or send it back to in_progress
     * @param {VerifyInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    verify: (input, options) => mutate("actions.verify", input, options),
  },
  activity: {
    /**
     * The activity trail of one entity, newest first
     * @param {ListByEntityInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    listByEntity: (input, options) => query("activity.listByEntity", input, options),
    /**
     * The organization's activity trail, newest first
     * @param {ListByOrgInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    listByOrg: (input = {}, options) => query("activity.listByOrg", input, options),
  },
  apiKeys: {
    /**
     * Create an API key; the full key is returned once
     * @param {CreateApiKeyInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("apiKeys.create", input, options),
    /**
     * Delete an API key record
     * @param {ApiKeyIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("apiKeys.delete", input, options),
    /**
     * The organization's API keys, without their secrets
     * @param {EmptyInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input = {}, options) => query("apiKeys.list", input, options),
    /**
     * Revoke an API key for good
     * @param {ApiKeyIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    revoke: (input, options) => mutate("apiKeys.revoke", input, options),
    /**
     * Revoke an API key and issue a new one with the same settings, atomically
     * @param {ApiKeyIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    rotate: (input, options) => mutate("apiKeys.rotate", input, options),
  },
  audits: {
    /**
     * Complete an audit whose every item is scored
     * @param {AuditsIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    completeAudit: (input, options) => mutate("audits.completeAudit", input, options),
    /**
     * Create an audit checklist of scored questions on a board
     * @param {CreateChecklistInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    createChecklist: (input, options) => mutate("audits.createChecklist", input, options),
    /**
     * Turn a completed audit's items scoring below a threshold into actions (each item at most once)
     * @param {GenerateActionsInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    generateActions: (input, options) => mutate("audits.generateActions", input, options),
    /**
     * An audit session with its scores
     * @param {AuditsIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getAuditById: (input, options) => query("audits.getAuditById", input, options),
    /**
     * An audit checklist with its items
     * @param {AuditsIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getChecklist: (input, options) => query("audits.getChecklist", input, options),
    /**
     * A board's completed audits, newest first, with percentages and per-category scores
     * @param {ScoreHistoryInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getScoreHistory: (input, options) => query("audits.getScoreHistory", input, options),
    /**
     * A board's audit sessions, newest first
     * @param {ListAuditsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    listAudits: (input, options) => query("audits.listAudits", input, options),
    /**
     * A board's audit checklists, newest first
     * @param {AuditsBoardInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    listChecklists: (input, options) => query("audits.listChecklists", input, options),
    /**
     * Start an audit session of a checklist; the caller is the auditor
     * @param {StartAuditInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    startAudit: (input, options) => mutate("audits.startAudit", input, options),
    /**
     * Score items of an audit in progress; an item scored again keeps the latest score
     * @param {SubmitScoreInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    submitScore: (input, options) => mutate("audits.submitScore", input, options),
  },
  auth: {
    /**
     * Whether an e-mail address is free; 409 when it is registered
     * @param {CheckEmailInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    checkEmail: (input, options) => query("auth.checkEmail", input, options),
    /**
     * The signed-in user, with memberships
     * @param {EmptyInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    me: (input = {}, options) => query("auth.me", input, options),
    tokens: {
      /**
       * Create a personal access token; the token is returned once
       * @param {CreateTokenInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      create: (input, options) => mutate("auth.tokens.create", input, options),
      /**
       * The caller's personal access tokens, without their values
       * @param {EmptyInput} [input]
       * @param {QueryOptions} [options]
       * @returns {Promise<any>}
       */
      list: (input = {}, options) => query("auth.tokens.list", input, options),
      /**
       * Revoke one of the caller's tokens
       * @param {RevokeTokenInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      revoke: (input, options) => mutate("auth.tokens.revoke", input, options),
    },
    /**
     * Change the signed-in user's name or image
     * @param {UpdateProfileInput} [input]
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    updateProfile: (input = {}, options) => mutate("auth.updateProfile", input, options),
  },
  automations: {
    /**
     * Create an automation on a board
     * @param {AutomationsCreateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("automations.create", input, options),
    /**
     * Delete an automation and its execution records
     * @param {AutomationsIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("automations.delete", input, options),
    /**
     * One automation run
     * @param {AutomationsIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getExecutionById: (input, options) => query("automations.getExecutionById", input, options),
    /**
     * A board's automation runs, newest first
     * @param {AutomationsHistoryInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getExecutionHistory: (input, options) => query("automations.getExecutionHistory", input, options),
    /**
     * A board's automations, oldest first
     * @param {AutomationsBoardInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("automations.list", input, options),
    /**
     * An automation's runs, newest first
     * @param {LogInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    log: (input, options) => query("automations.log", input, options),
    /**
     * Run an automation now on every item of its board (top-level, not archived): answers at once with how many runs were queued
     * @param {RunNowInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    runNow: (input, options) => mutate("automations.runNow", input, options),
    /**
     * Enable or disable an automation
     * @param {ToggleInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    toggle: (input, options) => mutate("automations.toggle", input, options),
    /**
     * Change an automation's name, trigger, conditions, actions or enabled flag
     * @param {AutomationsUpdateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("automations.update", input, options),
  },
  billing: {
    /**
     * Whether the organization's plan includes a feature, with its limit and usage
     * @param {FeatureGateInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    checkFeatureGate: (input, options) => query("billing.checkFeatureGate", input, options),
    /**
     * A payment processor checkout for a plan; its URL expires after 24 hours
     * @param {CheckoutInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    createCheckoutSession: (input, options) => mutate("billing.createCheckoutSession", input, options),
    /**
     * A payment processor portal for seats, payment methods and cancellation
     * @param {PortalInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    createPortalSession: (input, options) => mutate("billing.createPortalSession", input, options),
    /**
     * The organization's subscription: plan, status, period, seats and features
     * @param {EmptyInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getSubscription: (input = {}, options) => query("billing.getSubscription", input, options),
  },
  boards: {
    /**
     * Create a board
     * @param {CreateBoardInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("boards.create", input, options),
    /**
     * Delete a board with everything on it
     * @param {BoardIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("boards.delete", input, options),
    /**
     * A board with its groups and columns
     * @param {BoardIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    get: (input, options) => query("boards.get", input, options),
    groups: {
      /**
       * Add a group to a board
       * @param {CreateGroupInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      create: (input, options) => mutate("boards.groups.create", input, options),
      /**
       * Delete a group; its items are deleted or moved
       * @param {DeleteGroupInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      delete: (input, options) => mutate("boards.groups.delete", input, options),
      /**
       * Put a board's groups in a new order
       * @param {ReorderGroupsInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      reorder: (input, options) => mutate("boards.groups.reorder", input, options),
      /**
       * Rename, recolour or collapse a group
       * @param {UpdateGroupInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      update: (input, options) => mutate("boards.groups.update", input, options),
    },
    /**
     * A project's boards, newest first
     * @param {ListBoardsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("boards.list", input, options),
    /**
     * Rename a board or change its default view
     * @param {UpdateBoardInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("boards.update", input, options),
  },
  checklists: {
    /**
     * Complete a checklist for the current period
     * @param {ChecklistsCompleteInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    complete: (input, options) => mutate("checklists.complete", input, options),
    /**
     * Create a standard-work checklist on a board
     * @param {ChecklistsCreateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("checklists.create", input, options),
    /**
     * Delete a checklist and all its completions
     * @param {ChecklistsIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("checklists.delete", input, options),
    /**
     * A checklist's completions, newest first
     * @param {ChecklistsHistoryInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getCompletionHistory: (input, options) => query("checklists.getCompletionHistory", input, options),
    /**
     * How many of the expected completions a checklist had between two dates
     * @param {RateInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getCompletionRate: (input, options) => query("checklists.getCompletionRate", input, options),
    /**
     * A board's active checklists past their deadline hour and not completed in the current period
     * @param {ChecklistsBoardInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getMissed: (input, options) => query("checklists.getMissed", input, options),
    /**
     * The caller's active checklists of a board for the current period, each saying whether it is completed
     * @param {ChecklistsBoardInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getToday: (input, options) => query("checklists.getToday", input, options),
    /**
     * A board's checklists, newest first
     * @param {ChecklistsListInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("checklists.list", input, options),
    /**
     * Change a checklist's name, description, frequency, items, assignees, deadline hour or active flag
     * @param {ChecklistsUpdateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("checklists.update", input, options),
  },
  columns: {
    /**
     * Add a column
     * @param {CreateColumnInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("columns.create", input, options),
    /**
     * Delete a column and all its values
     * @param {ColumnIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("columns.delete", input, options),
    /**
     * Copy a column, optionally with its values
     * @param {DuplicateColumnInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    duplicate: (input, options) => mutate("columns.duplicate", input, options),
    /**
     * A board's columns
     * @param {ListColumnsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("columns.list", input, options),
    /**
     * Put a board's columns in a new order
     * @param {ReorderColumnsInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    reorder: (input, options) => mutate("columns.reorder", input, options),
    /**
     * Rename or reconfigure a column (its type is fixed)
     * @param {UpdateColumnInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("columns.update", input, options),
  },
  comments: {
    /**
     * Comment on an item or reply to a comment; \@<user_id> mentions notify members
     * @param {CreateCommentInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("comments.create", input, options),
    /**
     * Delete a comment and its replies (the author, or an admin)
     * @param {CommentIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("comments.delete", input, options),
    /**
     * An item's top-level comments, pinned first, then newest first
     * @param {ListCommentsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("comments.list", input, options),
    /**
     * Pin or unpin a comment
     * @param {PinCommentInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    pin: (input, options) => mutate("comments.pin", input, options),
    /**
     * Toggle the caller's reaction on a comment
     * @param {ReactInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    react: (input, options) => mutate("comments.react", input, options),
    /**
     * The replies to a comment, oldest first
     * @param {RepliesInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    replies: (input, options) => query("comments.replies", input, options),
    /**
     * Edit the body of one's own comment
     * @param {UpdateCommentInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("comments.update", input, options),
  },
  displays: {
    /**
     * Create a display link for a board's wall screen; its url, holding the secret in the fragment, is returned once
     * @param {DisplaysCreateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("displays.create", input, options),
    /**
     * One display link without its secret (with lastSeenAt); a display may read its own
     * @param {DisplaysIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    get: (input, options) => query("displays.get", input, options),
    /**
     * The organization's display links (of one board with boardId), newest first, without secrets
     * @param {DisplaysListInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input = {}, options) => query("displays.list", input, options),
    /**
     * Revoke a display link for good: its screens go dark at once, on every node
     * @param {DisplaysIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    revoke: (input, options) => mutate("displays.revoke", input, options),
  },
  events: {
    /**
     * Events of one stream with seq above `since`, oldest first
     * @param {ListEventsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("events.list", input, options),
  },
  export: {
    /**
     * All actions of a board, newest first, as CSV
     * @param {ExportsBoardInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    exportActionLog: (input, options) => query("export.exportActionLog", input, options),
    /**
     * A board's items (top level, neither archived nor in the trash) as CSV, one column per board column
     * @param {ExportsBoardInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    exportBoard: (input, options) => query("export.exportBoard", input, options),
    /**
     * A board's KPI values recorded from startDate to endDate (UTC days, both included) as CSV
     * @param {KpiDataInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    exportKpiData: (input, options) => query("export.exportKpiData", input, options),
    /**
     * A problem-solving sheet as a JSON document
     * @param {SheetInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    exportProblemSheet: (input, options) => query("export.exportProblemSheet", input, options),
  },
  formApprovalFlows: {
    /**
     * Validate the graph and make the flow the form's active one (its other active flow is deactivated)
     * @param {ApprovalsIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    activate: (input, options) => mutate("formApprovalFlows.activate", input, options),
    /**
     * Create an (inactive) approval flow for a form; without nodes and edges it is start → end (approved)
     * @param {CreateFlowInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("formApprovalFlows.create", input, options),
    /**
     * Stop opening requests on this flow
     * @param {ApprovalsIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    deactivate: (input, options) => mutate("formApprovalFlows.deactivate", input, options),
    /**
     * Soft-delete a flow without pending or in-progress requests
     * @param {ApprovalsIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("formApprovalFlows.delete", input, options),
    /**
     * A flow with its request counts per status
     * @param {ApprovalsIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getById: (input, options) => query("formApprovalFlows.getById", input, options),
    /**
     * A request with its decisions (and signature manifestations), version history and parent flow
     * @param {ApprovalsIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getRequestById: (input, options) => query("formApprovalFlows.getRequestById", input, options),
    /**
     * A flow's requests, newest first, by page
     * @param {RequestsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getRequests: (input, options) => query("formApprovalFlows.getRequests", input, options),
    /**
     * A form's flows with their request counts
     * @param {FormInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    listByForm: (input, options) => query("formApprovalFlows.listByForm", input, options),
    /**
     * Send the submission back to its respondent with a revision link; the request waits and resumes at the returning step
     * @param {ReturnInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    returnForRevision: (input, options) => mutate("formApprovalFlows.returnForRevision", input, options),
    /**
     * An approver's decision on the request's current step; GxP flows need the password and the meaning of the signature
     * @param {DecisionInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    submitDecisionAuthenticated: (input, options) => mutate("formApprovalFlows.submitDecisionAuthenticated", input, options),
    /**
     * A decision through an e-mailed single-use token (refused on GxP flows)
     * @param {TokenDecisionInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    submitDecisionByToken: (input, options) => mutate("formApprovalFlows.submitDecisionByToken", input, options),
    /**
     * Change a flow's name, description, GxP flag or graph (only the given fields; an active flow's graph is validated again)
     * @param {UpdateFlowInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("formApprovalFlows.update", input, options),
  },
  forms: {
    /**
     * Create a form on a board (draft unless a status is given)
     * @param {CreateFormInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("forms.create", input, options),
    /**
     * E-mail a published form to 1-500 recipients, each with a link carrying their own tracking token
     * @param {CreateDistributionInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    createDistribution: (input, options) => mutate("forms.createDistribution", input, options),
    /**
     * Delete a form and its submissions; the items they made remain
     * @param {FormsFormIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("forms.delete", input, options),
    /**
     * One form with its schema, mappings and settings
     * @param {FormsFormIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    get: (input, options) => query("forms.get", input, options),
    /**
     * A form's recipients with their progress (sent, opened, started, completed) and the response rate
     * @param {FormDistributionFormIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getDistributionStatus: (input, options) => query("forms.getDistributionStatus", input, options),
    /**
     * The forms of a board, newest first, without schema and mappings
     * @param {ListFormsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("forms.list", input, options),
    /**
     * E-mail a 6-digit code for a published form; always answers {sent: true}
     * @param {RequestOtpInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    requestOtp: (input, options) => mutate("forms.requestOtp", input, options),
    /**
     * E-mail every recipient who has not completed the form their link again
     * @param {FormDistributionFormIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    sendReminders: (input, options) => mutate("forms.sendReminders", input, options),
    submissions: {
      /**
       * One submission with its version history
       * @param {SubmissionIdInput} input
       * @param {QueryOptions} [options]
       * @returns {Promise<any>}
       */
      get: (input, options) => query("forms.submissions.get", input, options),
      /**
       * A form's submissions, newest first
       * @param {ListSubmissionsInput} input
       * @param {QueryOptions} [options]
       * @returns {Promise<any>}
       */
      list: (input, options) => query("forms.submissions.list", input, options),
      /**
       * Move a submission between new, reviewed and archived
       * @param {UpdateSubmissionInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      update: (input, options) => mutate("forms.submissions.update", input, options),
    },
    /**
     * Change a form's name, slug, status, schema, mappings or settings
     * @param {UpdateFormInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("forms.update", input, options),
    /**
     * Exchange a one-time code for a 24-hour session token for that form and e-mail
     * @param {VerifyOtpInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    verifyOtp: (input, options) => mutate("forms.verifyOtp", input, options),
  },
  import: {
    /**
     * Step 4: create the items, in batches through the board, skipping rows with errors by default
     * @param {ExecuteInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    execute: (input, options) => mutate("import.execute", input, options),
    /**
     * A board's imports of the last 90 days, newest first
     * @param {ImportsHistoryInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getHistory: (input, options) => query("import.getHistory", input, options),
    /**
     * Step 2: map CSV columns (0-based) onto the item name, board columns or the group; store the mapping
     * @param {MapColumnsInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    mapColumns: (input, options) => mutate("import.mapColumns", input, options),
    /**
     * Step 3: parse every row by the mapping: counts, the first rows as they would be stored, and the errors
     * @param {ImportIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    preview: (input, options) => mutate("import.preview", input, options),
  },
  items: {
    /**
     * Archive an item
     * @param {ItemIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    archive: (input, options) => mutate("items.archive", input, options),
    /**
     * Move up to 100 items to the trash
     * @param {BulkDeleteInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    bulkDelete: (input, options) => mutate("items.bulkDelete", input, options),
    /**
     * Set column values on up to 100 items
     * @param {BulkUpdateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    bulkUpdate: (input, options) => mutate("items.bulkUpdate", input, options),
    /**
     * Create an item
     * @param {CreateItemInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("items.create", input, options),
    /**
     * Move an item to the trash (restorable for 30 days)
     * @param {ItemIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("items.delete", input, options),
    /**
     * An item with its values, sub-items, comment and file counts
     * @param {ItemIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    get: (input, options) => query("items.get", input, options),
    /**
     * A board's items, paged
     * @param {ListItemsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("items.list", input, options),
    /**
     * Move an item to another group or board
     * @param {MoveItemInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    move: (input, options) => mutate("items.move", input, options),
    /**
     * Put a group's items in a new order
     * @param {ReorderItemsInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    reorder: (input, options) => mutate("items.reorder", input, options),
    /**
     * Bring an item back from the trash within 30 days
     * @param {ItemIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    restore: (input, options) => mutate("items.restore", input, options),
    /**
     * Set one column value of an item
     * @param {ItemsSetValueInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    setValue: (input, options) => mutate("items.setValue", input, options),
    /**
     * Rename an item or change its description
     * @param {UpdateItemInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("items.update", input, options),
  },
  kpis: {
    /**
     * Acknowledge an active KPI alert
     * @param {AlertIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    acknowledgeAlert: (input, options) => mutate("kpis.acknowledgeAlert", input, options),
    /**
     * Record up to 100 values of one or more KPIs; each entry is answered separately
     * @param {BatchSetValuesInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    batchSetValues: (input, options) => mutate("kpis.batchSetValues", input, options),
    /**
     * Define a KPI on a board
     * @param {DefineInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    define: (input, options) => mutate("kpis.define", input, options),
    /**
     * Delete a KPI with all its values, targets and alerts (irreversible)
     * @param {KpisIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("kpis.delete", input, options),
    /**
     * One KPI with its latest value, target and responsible user
     * @param {KpisIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    get: (input, options) => query("kpis.get", input, options),
    /**
     * A board's KPI alerts, newest first
     * @param {AlertsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getAlerts: (input, options) => query("kpis.getAlerts", input, options),
    /**
     * A KPI's values between `from` and `to`, newest first
     * @param {KpisHistoryInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getHistory: (input, options) => query("kpis.getHistory", input, options),
    /**
     * A KPI's current target and the targets set before it
     * @param {KpiIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getTargets: (input, options) => query("kpis.getTargets", input, options),
    /**
     * A KPI's latest value (null before the first)
     * @param {KpiIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getValue: (input, options) => query("kpis.getValue", input, options),
    /**
     * A board's KPIs, newest first, with latest value, target and responsible user
     * @param {KpisListInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("kpis.list", input, options),
    /**
     * A board's KPIs grouped by SQCDP category
     * @param {KpisBoardInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    listByCategory: (input, options) => query("kpis.listByCategory", input, options),
    /**
     * Resolve an active or acknowledged KPI alert
     * @param {AlertIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    resolveAlert: (input, options) => mutate("kpis.resolveAlert", input, options),
    /**
     * Set a KPI's target with optional milestones
     * @param {SetTargetInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    setTarget: (input, options) => mutate("kpis.setTarget", input, options),
    /**
     * Record a KPI value; its status is computed from the thresholds, and a breach raises an alert and notifies the responsible user
     * @param {KpisSetValueInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    setValue: (input, options) => mutate("kpis.setValue", input, options),
    /**
     * Change a KPI's definition
     * @param {KpisUpdateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("kpis.update", input, options),
  },
  mcpKeys: {
    /**
     * Create an assistant (MCP) key acting as the caller; the key is returned once
     * @param {CreateMcpKeyInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("mcpKeys.create", input, options),
    /**
     * The caller's assistant (MCP) keys, without their secrets
     * @param {EmptyInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input = {}, options) => query("mcpKeys.list", input, options),
    /**
     * Revoke an assistant (MCP) key for good
     * @param {McpKeyIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    revoke: (input, options) => mutate("mcpKeys.revoke", input, options),
  },
  meetings: {
    /**
     * Complete a meeting in progress with its notes (its starter or an admin); records the board's seq and emits meeting.completed
     * @param {MeetingsCompleteInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    complete: (input, options) => mutate("meetings.complete", input, options),
    /**
     * Set the agenda entry under discussion in a meeting in progress (its timer starts now); emits meeting.updated
     * @param {FocusInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    focus: (input, options) => mutate("meetings.focus", input, options),
    /**
     * One meeting with its agenda
     * @param {MeetingsIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    get: (input, options) => query("meetings.get", input, options),
    /**
     * A board's meetings, newest first, with their agendas
     * @param {MeetingsListInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("meetings.list", input, options),
    /**
     * Mark an agenda entry of a meeting in progress discussed (or not); emits meeting.updated
     * @param {MarkDiscussedInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    markDiscussed: (input, options) => mutate("meetings.markDiscussed", input, options),
    /**
     * A meeting's board as it was at the meeting's start and, page by page, the board's changes from its start until its completion, in seq order
     * @param {ReplayInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    replay: (input, options) => query("meetings.replay", input, options),
    /**
     * Start a tier meeting at a board: records its agenda (KPIs with status, actions due or overdue, open escalations) and the board's seq, and emits meeting.started
     * @param {StartInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    start: (input, options) => mutate("meetings.start", input, options),
  },
  notifications: {
    /**
     * The caller's notifications, newest first
     * @param {ListNotificationsInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input = {}, options) => query("notifications.list", input, options),
    /**
     * Mark all of the caller's unread notifications read
     * @param {EmptyInput} [input]
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    markAllAsRead: (input = {}, options) => mutate("notifications.markAllAsRead", input, options),
    /**
     * Mark one of the caller's notifications read
     * @param {NotificationIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    markAsRead: (input, options) => mutate("notifications.markAsRead", input, options),
    /**
     * Upsert the caller's push token for a platform
     * @param {DeviceTokenInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    registerDeviceToken: (input, options) => mutate("notifications.registerDeviceToken", input, options),
    /**
     * How many of the caller's notifications are unread
     * @param {EmptyInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    unreadCount: (input = {}, options) => query("notifications.unreadCount", input, options),
  },
  oauthApps: {
    /**
     * Register an OAuth application; a confidential app's client secret is returned once
     * @param {CreateOAuthAppInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("oauthApps.create", input, options),
    /**
     * Delete an OAuth application, revoking every grant and token it holds
     * @param {OAuthAppIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("oauthApps.delete", input, options),
    /**
     * The organization's OAuth applications, without their secrets
     * @param {EmptyInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input = {}, options) => query("oauthApps.list", input, options),
    /**
     * Issue a new client secret (returned once); the old one stops at once
     * @param {OAuthAppIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    rotateSecret: (input, options) => mutate("oauthApps.rotateSecret", input, options),
    /**
     * Rename an OAuth application or change its redirect URIs or scopes
     * @param {UpdateOAuthAppInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("oauthApps.update", input, options),
  },
  organizations: {
    /**
     * The caller's organization
     * @param {EmptyInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    get: (input = {}, options) => query("organizations.get", input, options),
    members: {
      /**
       * Invite someone by e-mail; the token is e-mailed
       * @param {InviteInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      invite: (input, options) => mutate("organizations.members.invite", input, options),
      /**
       * Members and pending invitations, newest first
       * @param {ListMembersInput} [input]
       * @param {QueryOptions} [options]
       * @returns {Promise<any>}
       */
      list: (input = {}, options) => query("organizations.members.list", input, options),
      /**
       * Remove a member
       * @param {RemoveMemberInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      remove: (input, options) => mutate("organizations.members.remove", input, options),
      /**
       * Change a member's role
       * @param {UpdateRoleInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      updateRole: (input, options) => mutate("organizations.members.updateRole", input, options),
    },
    /**
     * Change organization settings
     * @param {UpdateOrganizationInput} [input]
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input = {}, options) => mutate("organizations.update", input, options),
  },
  problemSolving: {
    /**
     * Start a problem-solving sheet (five whys, Ishikawa or 5W2H) on a board, in draft
     * @param {ProblemSolvingCreateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("problemSolving.create", input, options),
    /**
     * Delete a sheet for good
     * @param {ProblemSolvingIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("problemSolving.delete", input, options),
    /**
     * The sheets linked to an action, newest first
     * @param {ByActionInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getByAction: (input, options) => query("problemSolving.getByAction", input, options),
    /**
     * One sheet
     * @param {ProblemSolvingIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getById: (input, options) => query("problemSolving.getById", input, options),
    /**
     * Link a sheet to an action as its root-cause analysis: the sheet names the action and the action's rootCauseId names the sheet
     * @param {LinkInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    linkToRootCause: (input, options) => mutate("problemSolving.linkToRootCause", input, options),
    /**
     * A board's sheets, newest first, by offset
     * @param {ProblemSolvingListInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("problemSolving.list", input, options),
    /**
     * Review a completed sheet, with an optional comment
     * @param {ReviewInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    review: (input, options) => mutate("problemSolving.review", input, options),
    /**
     * Complete a draft or in-progress sheet
     * @param {ProblemSolvingIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    submit: (input, options) => mutate("problemSolving.submit", input, options),
    /**
     * Change a sheet's title, or replace its whole data
     * @param {ProblemSolvingUpdateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("problemSolving.update", input, options),
    /**
     * Set a sheet's status
     * @param {StatusInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    updateStatus: (input, options) => mutate("problemSolving.updateStatus", input, options),
  },
  projects: {
    /**
     * Create a project in a workspace
     * @param {CreateProjectInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("projects.create", input, options),
    /**
     * Delete a project with its boards and their items
     * @param {ProjectIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("projects.delete", input, options),
    /**
     * A project with its boards
     * @param {ProjectIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    get: (input, options) => query("projects.get", input, options),
    /**
     * A workspace's projects, newest first
     * @param {ListProjectsInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input, options) => query("projects.list", input, options),
    /**
     * Rename a project or change its description
     * @param {UpdateProjectInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("projects.update", input, options),
  },
  sso: {
    /**
     * The organization's single sign-on settings (never the client secret)
     * @param {EmptyInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getConfig: (input = {}, options) => query("sso.getConfig", input, options),
    /**
     * Set the organization's OpenID Connect provider, enforcement and allowed domains
     * @param {UpdateSsoConfigInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    updateConfig: (input, options) => mutate("sso.updateConfig", input, options),
  },
  templates: {
    /**
     * Create a board from a template, with optional overrides
     * @param {ApplyInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    apply: (input, options) => mutate("templates.apply", input, options),
    /**
     * Save a board's structure (groups, columns, KPIs, automations) as a template
     * @param {TemplatesCreateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("templates.create", input, options),
    /**
     * Delete a template (its creator or an admin); boards built from it stay
     * @param {TemplatesIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("templates.delete", input, options),
    /**
     * A template with its structure
     * @param {TemplatesIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    getById: (input, options) => query("templates.getById", input, options),
    /**
     * The organization's templates, newest first
     * @param {EmptyInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    listTenant: (input = {}, options) => query("templates.listTenant", input, options),
    /**
     * The built-in lean board templates
     * @param {EmptyInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    listVendor: (input = {}, options) => query("templates.listVendor", input, options),
    /**
     * Rename a template or change its description (its creator or an admin)
     * @param {TemplatesUpdateInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("templates.update", input, options),
  },
  webhooks: {
    /**
     * Register a URL to receive the subscribed events
     * @param {CreateWebhookInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("webhooks.create", input, options),
    /**
     * Remove a webhook and its delivery log
     * @param {WebhookIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("webhooks.delete", input, options),
    /**
     * A webhook's delivery attempts, newest first
     * @param {DeliveriesInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    deliveries: (input, options) => query("webhooks.deliveries", input, options),
    /**
     * The organization's webhooks, newest first
     * @param {EmptyInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input = {}, options) => query("webhooks.list", input, options),
    /**
     * Re-send a webhook's failed deliveries and reactivate it if it was marked failed
     * @param {WebhookIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    redeliver: (input, options) => mutate("webhooks.redeliver", input, options),
    /**
     * Change a webhook's events, URL, description or active flag
     * @param {UpdateWebhookInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("webhooks.update", input, options),
  },
  workspaces: {
    /**
     * Hide a workspace from lists without deleting data (workspace admins)
     * @param {WorkspaceIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    archive: (input, options) => mutate("workspaces.archive", input, options),
    /**
     * Create a workspace; the creator becomes its admin
     * @param {CreateWorkspaceInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    create: (input, options) => mutate("workspaces.create", input, options),
    /**
     * Delete a workspace with every project, board and item in it, irreversibly
     * @param {WorkspaceIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    delete: (input, options) => mutate("workspaces.delete", input, options),
    /**
     * A workspace with its members and projects
     * @param {WorkspaceIdInput} input
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    get: (input, options) => query("workspaces.get", input, options),
    /**
     * The workspaces the caller can access, newest first
     * @param {ListWorkspacesInput} [input]
     * @param {QueryOptions} [options]
     * @returns {Promise<any>}
     */
    list: (input = {}, options) => query("workspaces.list", input, options),
    members: {
      /**
       * Add an organization member, or change their workspace role
       * @param {AddWorkspaceMemberInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      add: (input, options) => mutate("workspaces.members.add", input, options),
      /**
       * Remove a member from a workspace
       * @param {RemoveWorkspaceMemberInput} input
       * @param {MutationOptions} [options]
       * @returns {Promise<any>}
       */
      remove: (input, options) => mutate("workspaces.members.remove", input, options),
    },
    /**
     * Bring an archived workspace back (workspace admins)
     * @param {WorkspaceIdInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    restore: (input, options) => mutate("workspaces.restore", input, options),
    /**
     * Change a workspace's settings (workspace admins)
     * @param {UpdateWorkspaceInput} input
     * @param {MutationOptions} [options]
     * @returns {Promise<any>}
     */
    update: (input, options) => mutate("workspaces.update", input, options),
  },
});

export const PROCEDURES = Object.freeze({
  "actions.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "actions.deescalate": {kind: "mutation", expectedVersion: false, pageList: null},
  "actions.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "actions.escalate": {kind: "mutation", expectedVersion: false, pageList: null},
  "actions.getById": {kind: "query", expectedVersion: false, pageList: null},
  "actions.getEscalated": {kind: "query", expectedVersion: false, pageList: "actions"},
  "actions.getOverdue": {kind: "query", expectedVersion: false, pageList: "actions"},
  "actions.getStats": {kind: "query", expectedVersion: false, pageList: null},
  "actions.list": {kind: "query", expectedVersion: false, pageList: "actions"},
  "actions.update": {kind: "mutation", expectedVersion: true, pageList: null},
  "actions.verify": {kind: "mutation", expectedVersion: false, pageList: null},
  "activity.listByEntity": {kind: "query", expectedVersion: false, pageList: "entries"},
  "activity.listByOrg": {kind: "query", expectedVersion: false, pageList: "entries"},
  "apiKeys.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "apiKeys.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "apiKeys.list": {kind: "query", expectedVersion: false, pageList: null},
  "apiKeys.revoke": {kind: "mutation", expectedVersion: false, pageList: null},
  "apiKeys.rotate": {kind: "mutation", expectedVersion: false, pageList: null},
  "audits.completeAudit": {kind: "mutation", expectedVersion: false, pageList: null},
  "audits.createChecklist": {kind: "mutation", expectedVersion: false, pageList: null},
  "audits.generateActions": {kind: "mutation", expectedVersion: false, pageList: null},
  "audits.getAuditById": {kind: "query", expectedVersion: false, pageList: null},
  "audits.getChecklist": {kind: "query", expectedVersion: false, pageList: null},
  "audits.getScoreHistory": {kind: "query", expectedVersion: false, pageList: null},
  "audits.listAudits": {kind: "query", expectedVersion: false, pageList: null},
  "audits.listChecklists": {kind: "query", expectedVersion: false, pageList: null},
  "audits.startAudit": {kind: "mutation", expectedVersion: false, pageList: null},
  "audits.submitScore": {kind: "mutation", expectedVersion: false, pageList: null},
  "auth.checkEmail": {kind: "query", expectedVersion: false, pageList: null},
  "auth.me": {kind: "query", expectedVersion: false, pageList: null},
  "auth.tokens.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "auth.tokens.list": {kind: "query", expectedVersion: false, pageList: null},
  "auth.tokens.revoke": {kind: "mutation", expectedVersion: false, pageList: null},
  "auth.updateProfile": {kind: "mutation", expectedVersion: false, pageList: null},
  "automations.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "automations.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "automations.getExecutionById": {kind: "query", expectedVersion: false, pageList: null},
  "automations.getExecutionHistory": {kind: "query", expectedVersion: false, pageList: "items"},
  "automations.list": {kind: "query", expectedVersion: false, pageList: null},
  "automations.log": {kind: "query", expectedVersion: false, pageList: "executions"},
  "automations.runNow": {kind: "mutation", expectedVersion: false, pageList: null},
  "automations.toggle": {kind: "mutation", expectedVersion: false, pageList: null},
  "automations.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "billing.checkFeatureGate": {kind: "query", expectedVersion: false, pageList: null},
  "billing.createCheckoutSession": {kind: "mutation", expectedVersion: false, pageList: null},
  "billing.createPortalSession": {kind: "mutation", expectedVersion: false, pageList: null},
  "billing.getSubscription": {kind: "query", expectedVersion: false, pageList: null},
  "boards.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "boards.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "boards.get": {kind: "query", expectedVersion: false, pageList: null},
  "boards.groups.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "boards.groups.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "boards.groups.reorder": {kind: "mutation", expectedVersion: false, pageList: null},
  "boards.groups.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "boards.list": {kind: "query", expectedVersion: false, pageList: "boards"},
  "boards.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "checklists.complete": {kind: "mutation", expectedVersion: false, pageList: null},
  "checklists.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "checklists.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "checklists.getCompletionHistory": {kind: "query", expectedVersion: false, pageList: null},
  "checklists.getCompletionRate": {kind: "query", expectedVersion: false, pageList: null},
  "checklists.getMissed": {kind: "query", expectedVersion: false, pageList: null},
  "checklists.getToday": {kind: "query", expectedVersion: false, pageList: null},
  "checklists.list": {kind: "query", expectedVersion: false, pageList: null},
  "checklists.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "columns.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "columns.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "columns.duplicate": {kind: "mutation", expectedVersion: false, pageList: null},
  "columns.list": {kind: "query", expectedVersion: false, pageList: null},
  "columns.reorder": {kind: "mutation", expectedVersion: false, pageList: null},
  "columns.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "comments.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "comments.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "comments.list": {kind: "query", expectedVersion: false, pageList: "comments"},
  "comments.pin": {kind: "mutation", expectedVersion: false, pageList: null},
  "comments.react": {kind: "mutation", expectedVersion: false, pageList: null},
  "comments.replies": {kind: "query", expectedVersion: false, pageList: "replies"},
  "comments.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "displays.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "displays.get": {kind: "query", expectedVersion: false, pageList: null},
  "displays.list": {kind: "query", expectedVersion: false, pageList: null},
  "displays.revoke": {kind: "mutation", expectedVersion: false, pageList: null},
  "events.list": {kind: "query", expectedVersion: false, pageList: "events"},
  "export.exportActionLog": {kind: "query", expectedVersion: false, pageList: null},
  "export.exportBoard": {kind: "query", expectedVersion: false, pageList: null},
  "export.exportKpiData": {kind: "query", expectedVersion: false, pageList: null},
  "export.exportProblemSheet": {kind: "query", expectedVersion: false, pageList: null},
  "formApprovalFlows.activate": {kind: "mutation", expectedVersion: false, pageList: null},
  "formApprovalFlows.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "formApprovalFlows.deactivate": {kind: "mutation", expectedVersion: false, pageList: null},
  "formApprovalFlows.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "formApprovalFlows.getById": {kind: "query", expectedVersion: false, pageList: null},
  "formApprovalFlows.getRequestById": {kind: "query", expectedVersion: false, pageList: null},
  "formApprovalFlows.getRequests": {kind: "query", expectedVersion: false, pageList: null},
  "formApprovalFlows.listByForm": {kind: "query", expectedVersion: false, pageList: null},
  "formApprovalFlows.returnForRevision": {kind: "mutation", expectedVersion: false, pageList: null},
  "formApprovalFlows.submitDecisionAuthenticated": {kind: "mutation", expectedVersion: false, pageList: null},
  "formApprovalFlows.submitDecisionByToken": {kind: "mutation", expectedVersion: false, pageList: null},
  "formApprovalFlows.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "forms.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "forms.createDistribution": {kind: "mutation", expectedVersion: false, pageList: null},
  "forms.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "forms.get": {kind: "query", expectedVersion: false, pageList: null},
  "forms.getDistributionStatus": {kind: "query", expectedVersion: false, pageList: null},
  "forms.list": {kind: "query", expectedVersion: false, pageList: null},
  "forms.requestOtp": {kind: "mutation", expectedVersion: false, pageList: null},
  "forms.sendReminders": {kind: "mutation", expectedVersion: false, pageList: null},
  "forms.submissions.get": {kind: "query", expectedVersion: false, pageList: null},
  "forms.submissions.list": {kind: "query", expectedVersion: false, pageList: "submissions"},
  "forms.submissions.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "forms.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "forms.verifyOtp": {kind: "mutation", expectedVersion: false, pageList: null},
  "import.execute": {kind: "mutation", expectedVersion: false, pageList: null},
  "import.getHistory": {kind: "query", expectedVersion: false, pageList: null},
  "import.mapColumns": {kind: "mutation", expectedVersion: false, pageList: null},
  "import.preview": {kind: "mutation", expectedVersion: false, pageList: null},
  "items.archive": {kind: "mutation", expectedVersion: false, pageList: null},
  "items.bulkDelete": {kind: "mutation", expectedVersion: false, pageList: null},
  "items.bulkUpdate": {kind: "mutation", expectedVersion: false, pageList: null},
  "items.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "items.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "items.get": {kind: "query", expectedVersion: false, pageList: null},
  "items.list": {kind: "query", expectedVersion: false, pageList: "items"},
  "items.move": {kind: "mutation", expectedVersion: true, pageList: null},
  "items.reorder": {kind: "mutation", expectedVersion: false, pageList: null},
  "items.restore": {kind: "mutation", expectedVersion: false, pageList: null},
  "items.setValue": {kind: "mutation", expectedVersion: true, pageList: null},
  "items.update": {kind: "mutation", expectedVersion: true, pageList: null},
  "kpis.acknowledgeAlert": {kind: "mutation", expectedVersion: false, pageList: null},
  "kpis.batchSetValues": {kind: "mutation", expectedVersion: false, pageList: null},
  "kpis.define": {kind: "mutation", expectedVersion: false, pageList: null},
  "kpis.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "kpis.get": {kind: "query", expectedVersion: false, pageList: null},
  "kpis.getAlerts": {kind: "query", expectedVersion: false, pageList: "alerts"},
  "kpis.getHistory": {kind: "query", expectedVersion: false, pageList: null},
  "kpis.getTargets": {kind: "query", expectedVersion: false, pageList: null},
  "kpis.getValue": {kind: "query", expectedVersion: false, pageList: null},
  "kpis.list": {kind: "query", expectedVersion: false, pageList: "kpis"},
  "kpis.listByCategory": {kind: "query", expectedVersion: false, pageList: null},
  "kpis.resolveAlert": {kind: "mutation", expectedVersion: false, pageList: null},
  "kpis.setTarget": {kind: "mutation", expectedVersion: false, pageList: null},
  "kpis.setValue": {kind: "mutation", expectedVersion: false, pageList: null},
  "kpis.update": {kind: "mutation", expectedVersion: true, pageList: null},
  "mcpKeys.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "mcpKeys.list": {kind: "query", expectedVersion: false, pageList: null},
  "mcpKeys.revoke": {kind: "mutation", expectedVersion: false, pageList: null},
  "meetings.complete": {kind: "mutation", expectedVersion: false, pageList: null},
  "meetings.focus": {kind: "mutation", expectedVersion: false, pageList: null},
  "meetings.get": {kind: "query", expectedVersion: false, pageList: null},
  "meetings.list": {kind: "query", expectedVersion: false, pageList: "meetings"},
  "meetings.markDiscussed": {kind: "mutation", expectedVersion: false, pageList: null},
  "meetings.replay": {kind: "query", expectedVersion: false, pageList: "changes"},
  "meetings.start": {kind: "mutation", expectedVersion: false, pageList: null},
  "notifications.list": {kind: "query", expectedVersion: false, pageList: "notifications"},
  "notifications.markAllAsRead": {kind: "mutation", expectedVersion: false, pageList: null},
  "notifications.markAsRead": {kind: "mutation", expectedVersion: false, pageList: null},
  "notifications.registerDeviceToken": {kind: "mutation", expectedVersion: false, pageList: null},
  "notifications.unreadCount": {kind: "query", expectedVersion: false, pageList: null},
  "oauthApps.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "oauthApps.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "oauthApps.list": {kind: "query", expectedVersion: false, pageList: null},
  "oauthApps.rotateSecret": {kind: "mutation", expectedVersion: false, pageList: null},
  "oauthApps.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "organizations.get": {kind: "query", expectedVersion: false, pageList: null},
  "organizations.members.invite": {kind: "mutation", expectedVersion: false, pageList: null},
  "organizations.members.list": {kind: "query", expectedVersion: false, pageList: "members"},
  "organizations.members.remove": {kind: "mutation", expectedVersion: false, pageList: null},
  "organizations.members.updateRole": {kind: "mutation", expectedVersion: false, pageList: null},
  "organizations.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "problemSolving.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "problemSolving.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "problemSolving.getByAction": {kind: "query", expectedVersion: false, pageList: null},
  "problemSolving.getById": {kind: "query", expectedVersion: false, pageList: null},
  "problemSolving.linkToRootCause": {kind: "mutation", expectedVersion: false, pageList: null},
  "problemSolving.list": {kind: "query", expectedVersion: false, pageList: null},
  "problemSolving.review": {kind: "mutation", expectedVersion: false, pageList: null},
  "problemSolving.submit": {kind: "mutation", expectedVersion: false, pageList: null},
  "problemSolving.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "problemSolving.updateStatus": {kind: "mutation", expectedVersion: false, pageList: null},
  "projects.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "projects.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "projects.get": {kind: "query", expectedVersion: false, pageList: null},
  "projects.list": {kind: "query", expectedVersion: false, pageList: "projects"},
  "projects.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "sso.getConfig": {kind: "query", expectedVersion: false, pageList: null},
  "sso.updateConfig": {kind: "mutation", expectedVersion: false, pageList: null},
  "templates.apply": {kind: "mutation", expectedVersion: false, pageList: null},
  "templates.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "templates.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "templates.getById": {kind: "query", expectedVersion: false, pageList: null},
  "templates.listTenant": {kind: "query", expectedVersion: false, pageList: null},
  "templates.listVendor": {kind: "query", expectedVersion: false, pageList: null},
  "templates.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "webhooks.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "webhooks.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "webhooks.deliveries": {kind: "query", expectedVersion: false, pageList: "deliveries"},
  "webhooks.list": {kind: "query", expectedVersion: false, pageList: null},
  "webhooks.redeliver": {kind: "mutation", expectedVersion: false, pageList: null},
  "webhooks.update": {kind: "mutation", expectedVersion: false, pageList: null},
  "workspaces.archive": {kind: "mutation", expectedVersion: false, pageList: null},
  "workspaces.create": {kind: "mutation", expectedVersion: false, pageList: null},
  "workspaces.delete": {kind: "mutation", expectedVersion: false, pageList: null},
  "workspaces.get": {kind: "query", expectedVersion: false, pageList: null},
  "workspaces.list": {kind: "query", expectedVersion: false, pageList: "workspaces"},
  "workspaces.members.add": {kind: "mutation", expectedVersion: false, pageList: null},
  "workspaces.members.remove": {kind: "mutation", expectedVersion: false, pageList: null},
  "workspaces.restore": {kind: "mutation", expectedVersion: false, pageList: null},
  "workspaces.update": {kind: "mutation", expectedVersion: false, pageList: null},
});
