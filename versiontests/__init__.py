"""Version tests: "is my new engine version better than the old one?", answered by an SPRT.

A Django app of its own (label ``versiontests``): the statistics are the
pure ``ratings.stats.sprt``; this app stores the tests, plays their game pairs through the
matches app and counts each recorded pair once.
"""
