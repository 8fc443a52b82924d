"""The refresh engine: a batch of changed paths becomes a new immutable snapshot.

build.py reads a workspace once (:func:`~teamdeck.view.refresh.build.build_snapshot`) and
then re-reads only what a batch of paths touches
(:func:`~teamdeck.view.refresh.build.refresh`): changes.py says what a path belongs to,
read_state.py holds what was read between two snapshots, the readers (view/readers/)
read it, log_merge.py, timeline.py, task_list_state.py and gate_members.py derive the
rest in memory, and assemble.py makes the snapshot. file_record.py records the state of
every file a snapshot is read from, for what no watcher saw. Imports none of its modules
here: the TUI compares two file records before it imports the readers.
"""
