"""Bounds that certify heuristics (upper bounds for maximisation, lower bounds for minimisation), one package per
family: :mod:`lowerbounds.vc`, :mod:`lowerbounds.moldable`, :mod:`lowerbounds.batch`, :mod:`lowerbounds.timeshare`,
:mod:`lowerbounds.diet`; :mod:`lowerbounds.reference` holds what the simulation references share."""
