"""The team protocol (seed 004): Claude Code teams and their rosters (teams.py, the last
one seen in archive.py, connections.py), the team's message log (teamlog.py), its inboxes
read (inboxes.py, observed.py) and written (messaging/, keyed_sends.py), the handshake
ledger (ledger/), permission prompts (permissions.py, sandbox_permissions.py), stuck
shutdowns resent (shutdown_resend.py), what live sessions and hooks tell teamdeck
(sessions.py, session_log.py, hooks.py, hook_settings.py, channel_push.py), the team's
task list (task_list.py, task_list_checks.py) and the "may I" rules of the team writes
(allowed.py).
"""
