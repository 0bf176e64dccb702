"""Magnetmen (rules/magnetmen.md): a board printed from a seed, 2-4 players collecting and
destroying its squares, 24 types of Magnetman with their powers."""
