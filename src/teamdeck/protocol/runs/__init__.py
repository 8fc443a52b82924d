"""What ``teamdeck run`` is asked and asks (the runner itself is teamdeck/runner/): the
wakes and stops a person writes (requests.py) and the decisions the runner asks a
person, folded with their answers (decisions.py).
"""
