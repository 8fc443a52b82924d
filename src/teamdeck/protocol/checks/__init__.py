"""The walks over a whole workspace: ``teamdeck validate``, every file checked against its
model or schema (validate.py), and what is wrong between the files (hygiene.py). They
read every domain's files, so they sit above all of them.
"""
