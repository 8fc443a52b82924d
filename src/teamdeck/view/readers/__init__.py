"""One reader per source of the read model: each turns one kind of file into the
snapshot's rows (view/snapshot/) and keeps what it read, so a change re-reads only that.

teamdeck's own tasks (tasks.py), their plans and verdicts (plans.py), the forge's issues
(issues.py) and failed deliveries (outbox.py), the runner's records (runs.py), live
sessions' prompts (sessions.py), the events logs (log_source.py), the notify settings
(notify_settings.py); and a Claude Code team's files: config.json, inboxes and ledger
(team_files.py), folded into inbox rows (inbox_fold.py, frames.py), the roster
(team_roster.py), the decisions it waits for (team_decisions.py) and its task list
(team_tasks.py). Readers use the figures (view/figures/) and never the refresh engine
(view/refresh/), which calls them. Imports none of its modules here.
"""
