"""The directive reader: a directive to a goal by grammar and Sentence-BERT grounding, and the check
of a model's goal against the directive's words.

* :mod:`.goal_parser`, :mod:`.quantities`: the words of a directive (counts, negations, names) to
  goal tuples, with the cue words of ``data/reader_cues.yaml``;
* :mod:`.directive_reading`: what a directive names (:mod:`.mentions`) and the questions one
  answer settles;
* :mod:`.goal_support`: a model's goal refused where the directive's words do not support it.

Every path uses it: the offline backend translates with it, the openai path checks the model's
goal with it, and the nodes ask back with it.
"""
