"""paddle.nn.BeamSearchDecoder and paddle.nn.dynamic_decode against Paddle 3.3.1 (CPU).

A small seq2seq decoder (Embedding(7, 4) -> cell with hidden 5 -> Linear(5, 7), start token
0, end token 1, batch 2) with weights drawn from a seeded numpy RNG (`_weights`), the cell a
GRUCell, an LSTMCell or a user Layer whose states are a dict and which takes a keyword
argument. BEAM, GRADS and GREEDY_LSTM were measured with /work/scratch/beam/measure.py,
greedy.py and gen_pins.py (`/work/peers/bin/python measure.py paddle`, Paddle 3.3.1, the same
weights copied in with set_value): BEAM maps (cell, beam_size, seed, max_step_num, extra bias
on the end token's logit) to Paddle's predicted ids [batch, time, beam], final log_probs
(scores) and lengths, which Paddle gives the same for output_time_major and impute_finished
both ways (transposed for time-major). An end bias makes beams finish early, and with
max_step_num 30 the whole batch finishes before it. GRADS: the gradients of
final_states.log_probs.sum() (decoding outside no_grad trains through the search in Paddle's
dynamic mode). GREEDY_LSTM: a user Decoder (greedy, not tracking its own finished flags), where
impute_finished and the lengths follow Paddle's dynamic mode.
"""

import numpy as np
import pytest

import jitgrad as paddle

V, E, H, BATCH = 7, 4, 5, 2
START, END = 0, 1

BEAM = {('gru', 2, 2, 4, 0.0): {'ids': [[[2, 2], [5, 5], [5, 5], [5, 5], [5, 2]],
                                        [[4, 4], [4, 4], [4, 4], [0, 4], [4, 0]]],
                                'scores': [-3.905903, -4.424239, -3.111789, -3.386552],
                                'lengths': [[5, 5], [5, 5]]},
        ('gru', 3, 3, 4, 0.0): {'ids': [[[1, 0, 0], [1, 0, 0], [1, 0, 0], [1, 0, 0], [1, 2, 0]],
                                        [[2, 0, 0], [1, 2, 2], [1, 1, 2], [1, 1, 4], [1, 1, 1]]],
                                'scores': [-1.838088, -3.851409, -4.163329, -1.718881, -3.31198,
                                           -4.88021],
                                'lengths': [[1, 5, 5], [2, 3, 5]]},
        ('gru', 4, 4, 4, 0.0): {'ids': [[[1, 2, 2, 2], [1, 4, 2, 4], [1, 2, 4, 2], [1, 4, 2, 2],
                                         [1, 2, 2, 4]],
                                        [[6, 6, 6, 6], [3, 3, 3, 3], [6, 6, 6, 3], [5, 5, 3, 4],
                                         [5, 3, 3, 2]]],
                                'scores': [-2.100342, -3.49065, -3.614489, -3.743622, -4.75783,
                                           -4.829787, -5.023015, -5.055983],
                                'lengths': [[1, 5, 5, 5], [5, 5, 5, 5]]},
        ('lstm', 2, 2, 4, 0.0): {'ids': [[[1, 2], [1, 3], [1, 6], [1, 1]],
                                         [[1, 2], [1, 3], [1, 6], [1, 1]]],
                                 'scores': [-1.656544, -6.053072, -1.484119, -6.134383],
                                 'lengths': [[1, 4], [1, 4]]},
        ('lstm', 3, 3, 4, 0.0): {'ids': [[[1, 3, 0], [1, 1, 3], [1, 1, 1]],
                                         [[1, 3, 3], [1, 1, 3], [1, 1, 1]]],
                                 'scores': [-1.607608, -3.211058, -4.381532, -1.271828, -2.542272,
                                            -3.874116],
                                 'lengths': [[1, 2, 3], [1, 2, 3]]},
        ('lstm', 4, 4, 4, 0.0): {'ids': [[[6, 2, 6, 6], [4, 6, 4, 4], [4, 4, 4, 4], [4, 4, 4, 6],
                                          [4, 4, 6, 4]],
                                         [[1, 2, 2, 2], [1, 4, 2, 2], [1, 4, 6, 4], [1, 4, 4, 4],
                                          [1, 4, 4, 4]]],
                                 'scores': [-4.435251, -4.998195, -5.303353, -5.65542, -1.570689,
                                            -6.72847, -7.000218, -7.034125],
                                 'lengths': [[5, 5, 5, 5], [1, 5, 5, 5]]},
        ('gru', 2, 12, 6, 1.5): {'ids': [[[1, 5], [1, 1], [1, 1]], [[3, 3], [1, 5], [1, 1]]],
                                 'scores': [-0.5216781, -2.777973, -2.272119, -4.10007],
                                 'lengths': [[1, 2], [2, 3]]},
        ('gru', 2, 22, 30, 2.5): {'ids': [[[6, 6], [4, 4], [1, 6], [1, 1]],
                                          [[1, 0], [1, 1], [1, 1], [1, 1]]],
                                  'scores': [-2.367675, -3.545433, -0.2511291, -2.4491],
                                  'lengths': [[3, 4], [1, 2]]},
        ('gru', 3, 13, 6, 1.5): {'ids': [[[1, 3, 3], [1, 1, 3], [1, 1, 1]],
                                         [[3, 3, 1], [3, 1, 1], [1, 1, 1]]],
                                 'scores': [-0.8353322, -1.782432, -2.338788, -1.413791, -1.469089,
                                            -1.879741],
                                 'lengths': [[1, 2, 3], [3, 2, 1]]},
        ('gru', 3, 23, 30, 2.5): {'ids': [[[1, 4, 0], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4]],
                                          [[1, 4, 0], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4], [1, 4, 4],
                                           [1, 4, 4]]],
                                  'scores': [-0.8382517, -11.07366, -11.40558, -1.128767,
                                             -10.76723, -11.26138],
                                  'lengths': [[1, 31, 31], [1, 31, 31]]},
        ('lstm', 2, 12, 6, 1.5): {'ids': [[[1, 6], [1, 5], [1, 1]], [[1, 4], [1, 1], [1, 1]]],
                                  'scores': [-1.827776, -3.725477, -1.001369, -2.558208],
                                  'lengths': [[1, 3], [1, 2]]},
        ('lstm', 2, 22, 30, 2.5): {'ids': [[[1, 3], [1, 1]], [[1, 2], [1, 1]]],
                                   'scores': [-1.281486, -1.589548, -1.170694, -2.112297],
                                   'lengths': [[1, 2], [1, 2]]},
        ('lstm', 3, 13, 6, 1.5): {'ids': [[[1, 5, 2], [1, 1, 1], [1, 1, 1]],
                                          [[6, 1, 6], [1, 1, 6], [1, 1, 1]]],
                                  'scores': [-0.7382076, -2.803068, -3.138757, -1.387875,
                                             -1.775089, -2.786877],
                                  'lengths': [[1, 2, 2], [2, 1, 3]]},
        ('lstm', 3, 23, 30, 2.5): {'ids': [[[1, 3, 6], [1, 1, 5], [1, 1, 1]],
                                           [[1, 4, 6], [1, 1, 1], [1, 1, 1]]],
                                   'scores': [-1.293362, -2.254821, -3.350099, -0.8660128,
                                              -2.191362, -3.328515],
                                   'lengths': [[1, 2, 3], [1, 2, 2]]},
        ('gru', 3, 7, 3, 0.5): {'ids': [[[1, 5, 0], [1, 1, 0], [1, 1, 0], [1, 1, 6]],
                                        [[6, 6, 0], [6, 0, 6], [6, 6, 6], [6, 6, 6]]],
                                'scores': [-1.931831, -2.120024, -3.510015, -2.82263, -3.247849,
                                           -3.293335],
                                'lengths': [[1, 2, 4], [4, 4, 4]]},
        ('lstm', 3, 7, 3, 0.5): {'ids': [[[1, 4, 4], [1, 1, 4], [1, 1, 4], [1, 1, 4]],
                                         [[1, 4, 4], [1, 1, 4], [1, 1, 4], [1, 1, 4]]],
                                 'scores': [-1.576131, -2.59042, -4.600008, -1.731046, -2.69965,
                                            -4.229924],
                                 'lengths': [[1, 2, 4], [1, 2, 4]]},
        ('custom', 3, 7, 3, 0.5): {'ids': [[[4, 4, 4], [1, 4, 4], [1, 1, 5], [1, 1, 5]],
                                           [[1, 4, 5], [1, 1, 1], [1, 1, 1], [1, 1, 1]]],
                                   'scores': [-1.201394, -2.065005, -2.941979, -0.9145073,
                                              -2.432474, -2.713772],
                                   'lengths': [[2, 3, 4], [1, 2, 2]]},
        ('custom', 3, 5, 5, 1.0): {'ids': [[[1, 3, 4], [1, 1, 1]], [[1, 3, 4], [1, 1, 1]]],
                                   'scores': [-0.9036453, -2.261902, -2.798802, -1.11599,
                                              -2.279043, -2.650347],
                                   'lengths': [[1, 2, 2], [1, 2, 2]]},
        ('custom', 2, 6, 4, 0.0): {'ids': [[[0, 0], [0, 2], [0, 0], [0, 0], [0, 0]],
                                           [[2, 2], [0, 0], [2, 2], [0, 0], [0, 2]]],
                                   'scores': [-2.589869, -3.599613, -2.057261, -2.642111],
                                   'lengths': [[5, 5], [5, 5]]}}
GRADS = {'gru': {'w_ih': [0.0004765514, -0.01008199, -0.01795067, 0.01906348, -0.1549564,
                          -0.0890644, -0.02919533, 0.2349209, 0.1469942, 0.01367185, 0.0218085,
                          -0.04028081, -0.0101207, 0.004250194, 0.01202389, -0.005342348,
                          -0.09852587, -0.00793805, -0.1032934, -0.01188124, 0.09958843,
                          -0.2240539, -0.1083626, 0.5324754, -0.1421992, -0.2893552, 1.59729,
                          1.411249, 0.3952015, 0.06269017, 0.2786357, -0.08750185, 0.05188358,
                          -0.01938654, 0.05944774, 0.06983487, -0.2345061, 0.005008556, -0.212793,
                          -0.07739829, 0.3252262, -0.2736602, -6.055465, -1.751313, -0.8683037,
                          -0.7934074, 0.2128079, 2.236489, -2.175261, -0.1846414, 0.09383907,
                          0.7175269, -0.07891683, 0.08504322, 0.3058644, -0.09185823, 0.2865934,
                          0.04946281, 0.2662852, -0.04806295],
                 'w_hh': [0.007456275, -0.03237598, -0.002763178, -0.0001868291, 0.01921295,
                          0.06146093, 0.1284279, 0.1140884, -0.02020378, 0.05899931, 0.09128283,
                          -0.006230086, 0.01259712, 0.006905867, 0.1281183, -0.01818406,
                          0.004439005, -0.001086874, -0.001481119, -0.02535315, -0.08816798,
                          -0.005038904, -0.03303503, 0.002919576, -0.09297971, 0.4082187,
                          -0.1553901, 0.1649137, -0.04273851, 0.322771, 0.397744, -0.5770141,
                          0.4549577, -0.1994858, 0.1895263, -0.08233851, 0.1965657, 0.1194069,
                          -0.03191453, -0.08587608, 0.1274924, -0.02426218, 0.03321755,
                          -0.0008960005, 0.1466908, -0.3181714, 0.08534229, -0.06631089,
                          -0.001433957, -0.3631949, -0.6305584, -1.0769, -1.308987, 0.3658428,
                          0.08165663, 0.2492546, -0.0787347, 0.2515468, -0.0807171, 0.1552252,
                          -0.8872786, 0.1382624, -0.04722773, -0.09045494, -1.310276, 0.003590636,
                          0.08624413, 0.07776611, -0.02275128, -0.04229922, 0.07078971,
                          -0.05730217, 0.0001247106, 0.003905877, 0.1037113],
                 'lin_w': [-0.2391687, -0.7441475, 0.3421771, 0.150739, 0.06150795, 0.7569535,
                           -0.3280613, 0.8988945, -0.1385541, 0.5890071, 0.1890571, 0.07439367,
                           0.6948608, -2.307659, 0.4370528, 0.03993389, 0.6302207, 0.2229785,
                           0.09411535, 0.9166784, -2.34098, -0.2606323, 0.05291487, -0.1623321,
                           -0.05737097, -0.02485989, -0.2057594, 0.6580399, -1.226406, -1.320868,
                           0.05148929, 0.1056918, 0.05012208, 0.8198112, 1.52016],
                 'lin_b': [-0.71635, 0.7435675, -1.066103, -0.4132073, -0.1804886, -1.71036,
                           3.342942],
                 'emb': [0.4807771, -1.317568, -1.688611, -1.512082, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                         0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.3819675, -0.4525312,
                         0.1589296, 1.446449, -1.742644, -0.9333693, 1.022989, -3.64774]},
         'lstm': {'w_ih': [-0.09714781, -0.06488788, -0.107982, 0.001908086, -0.02432827,
                           -0.02358704, -0.02025609, 0.02241136, -0.2402261, -0.03351623,
                           -0.3844025, -0.3747301, -0.09823243, -0.08223866, -0.09381236,
                           0.05162958, 0.01151448, 0.01762822, 0.003609018, -0.02993137,
                           -0.1774471, -0.03034429, -0.2787789, -0.2600999, -0.05179745,
                           -0.007215332, -0.08289527, -0.08083329, -0.1462077, -0.04831303,
                           -0.2081434, -0.1446278, 0.1116811, 0.005654011, 0.1878893, 0.2038883,
                           -0.141813, -0.02184331, -0.225022, -0.2150641, -0.03165667, 0.0253995,
                           -0.07822861, -0.1385095, 0.003497147, 0.009480144, -0.002719533,
                           -0.02142475, 1.048639, 0.322181, 1.51536, 1.110044, -1.152893,
                           -0.2856516, -1.729415, -1.425345, 0.01492787, -0.04296033, 0.06554069,
                           0.1579308, -1.368353, -0.3109309, -2.078609, -1.775735, -0.06629764,
                           -0.02303639, -0.09333833, -0.06220658, -0.007629045, 0.004132253,
                           -0.01701337, -0.02743467, -0.03503083, -0.09205392, 0.02455189,
                           0.2059171, -0.1151138, 0.01096948, -0.2091978, -0.2603664],
                  'w_hh': [0.2692153, -0.2232294, -0.1682742, -0.137715, -0.09454325, 0.005587567,
                           -0.04056632, -0.01150156, 0.002498282, -0.005997814, -0.1790591,
                           0.1516637, 0.03031673, 0.0918102, 0.07440083, 0.2605981, -0.2347264,
                           -0.154524, -0.1235256, -0.09707924, -0.05569355, 0.0409974, 0.02142951,
                           0.02520206, 0.02215054, -0.001772141, 0.02394085, -0.05100777,
                           -0.005324437, 0.01128586, -0.01207927, 0.01305756, -0.01077302,
                           0.003982517, 0.007540978, -0.00155114, -0.01110294, -0.03280667,
                           0.006442703, 0.00255228, 0.115295, -0.1265907, -0.041196, -0.05347454,
                           -0.04493627, 0.03788243, 0.03719053, -0.0389777, -0.03100954,
                           -0.004875255, -0.08370411, 0.09337694, 0.02476022, 0.03291879,
                           0.03773111, -0.008984358, 0.01568695, 0.001980883, 0.001338579,
                           0.005333213, -0.04065456, 0.08569251, 0.2785761, -0.004192397,
                           -0.008871423, -0.02383962, 0.1903863, -0.2070583, 0.003714584,
                           0.03945449, 0.1119535, -0.1493484, -0.05341743, -0.04432738,
                           -0.04960192, -0.1810155, 0.1966529, -0.2539748, 0.09213123, 0.1208088,
                           -0.02935155, -0.03053619, -0.0220723, 0.01692644, 0.01153633,
                           -0.004798308, 0.008936257, -0.002984987, -1.787649e-05, 0.00366346,
                           0.3567182, -0.3715922, -0.2041089, -0.1593157, -0.1311035, -0.1122483,
                           0.1518007, 0.03665982, 0.04451519, 0.05051665],
                  'lin_w': [-0.3386487, 0.4376542, -0.3119767, -0.2826899, 1.288459, -0.39066,
                            -0.4021372, 0.226839, -0.06755732, 0.254297, 0.1952861, -1.006909,
                            0.1394626, 0.2585813, 0.4971354, -0.5551156, 0.5310243, 0.4255806,
                            -1.926681, 0.4325463, 0.5955098, 0.1019013, -0.2263621, 0.08922384,
                            0.07626726, -0.3213389, 0.1602609, 0.1200476, 0.088138, -0.1834045,
                            0.08269021, 0.07204722, -0.2859388, 0.1176183, 0.1088496],
                  'lin_b': [-1.358332, 1.530148, -1.418044, -1.154922, 5.265302, -1.244681,
                            -1.61947],
                  'emb': [0.1325399, 0.5073273, 0.3647178, -0.2367355, 0.0, 0.0, 0.0, 0.0, 0.0,
                          0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.4480658, 0.7258352, 0.3235016,
                          -0.3531199, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]},
         'custom': {'cell_w': [-0.09343944, -2.117993, 1.432278, 0.6632721, 0.02941638, 0.2581688,
                               -0.5975678, 0.3215309, -0.02962989, -0.09232476, -0.4914882,
                               -2.400083, 2.340451, -0.287107, 0.1182614, -1.128601, -1.060858,
                               2.174614, -1.359535, 0.3001833, 0.9309489, 1.395082, -0.8780846,
                               0.2310061, -0.1981552, -0.3630535, -0.428335, 0.8812703, -0.804692,
                               0.03064472, -0.8353416, 0.4691885, 1.274986, -1.418975, 0.1578057,
                               -0.5651973, 0.3318965, -0.8858515, 0.6398526, 0.1551334, 0.01044694,
                               -1.798759, -1.460083, 1.460314, 0.06823362],
                    'lin_w': [-0.3265282, 0.9413967, -0.02324885, -0.758782, 0.5692686, -0.2107082,
                              -0.191398, 0.06128109, 0.3311843, 0.005826882, 0.08473147,
                              -0.2413516, -0.2882084, 0.04653637, -0.103531, 0.4635584,
                              -0.006081469, -0.3186629, -0.1920805, 0.1942761, -0.03747846,
                              -0.1208551, -0.1654469, -0.01024397, -0.3404783, 0.8225347,
                              -0.08652449, -0.09898611, 0.1866004, -0.8956064, 0.01201819,
                              0.5896413, -0.0594241, 0.07964179, 0.08712861],
                    'lin_b': [-0.4225868, 0.84613, -0.03283583, -1.000664, 0.8478662, 0.01767403,
                              -0.2555841],
                    'emb': [-0.1882601, 0.09075214, -1.174763, -0.1990457, 0.0, 0.0, 0.0, 0.0, 0.0,
                            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.530879, -1.078482, 0.4180803,
                            -0.4165722, -0.3110267, -0.1790607, 0.908302, -0.2333089, 0.0, 0.0,
                            0.0, 0.0]}}
GREEDY_LSTM = {False: {'ids': [[5, 0, 5, 1], [5, 1, 0, 1]],
                       'lengths': [3, 1],
                       'h': [-0.04963147, -0.08940187, -8.31756e-05, 0.02772353, 0.05555691,
                             -0.6202931, -0.1297999, 0.05681477, -0.01742928, 0.1639631],
                       'c': [-0.3386264, -0.2605742, -0.0002268702, 0.118999, 0.08461481,
                             -0.9837586, -0.5313733, 0.4766227, -0.03761843, 0.5757311]},
               True: {'ids': [[5, 0, 5, 1], [5, 1, 1, 1]],
                      'lengths': [3, 1],
                      'h': [-0.5231825, -0.1367177, 0.05280894, -0.220301, 0.193411, -0.4305147,
                            0.1025789, 0.03831267, -0.2378103, 0.1661476],
                      'c': [-0.8108902, -0.6063049, 0.4322742, -0.619193, 0.6956755, -0.7515203,
                            0.240595, 0.3398915, -0.3419653, 0.9025787]}}

KWARGS = {5: {"scale": 0.5}}      # seed -> dynamic_decode keyword arguments (to the cell)


def _weights(cell_kind, seed, end_bias):
    rng = np.random.default_rng(seed)
    g = 3 if cell_kind == "gru" else 4
    w = dict(emb=rng.normal(0, 1, (V, E)), w_ih=rng.normal(0, .6, (g * H, E)),
             w_hh=rng.normal(0, .6, (g * H, H)), b_ih=rng.normal(0, .3, (g * H,)),
             b_hh=rng.normal(0, .3, (g * H,)), lin_w=rng.normal(0, 1, (H, V)),
             lin_b=rng.normal(0, .3, (V,)), h0=rng.normal(0, 1, (BATCH, H)),
             c0=rng.normal(0, 1, (BATCH, H)))
    w["lin_b"][END] += end_bias
    return {k: v.astype("float32") for k, v in w.items()}


class MyCell(paddle.nn.Layer):
    """A user cell: dict states, a keyword argument passed through dynamic_decode."""

    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(E + H, H)

    def forward(self, inputs, states, scale=1.0):
        h = paddle.tanh(self.lin(paddle.concat([inputs, states["h"]], axis=-1))) * scale
        return h, {"h": h}


def _build(cell_kind, seed, end_bias=0.0):
    w = _weights(cell_kind, seed, end_bias)
    emb, lin = paddle.nn.Embedding(V, E), paddle.nn.Linear(H, V)
    emb.weight.set_value(w["emb"])
    lin.weight.set_value(w["lin_w"])
    lin.bias.set_value(w["lin_b"])
    h0 = paddle.to_tensor(w["h0"])
    if cell_kind == "custom":
        cell = MyCell()
        cell.lin.weight.set_value(np.concatenate([w["w_ih"][:H].T, w["w_hh"][:H].T], 0))
        cell.lin.bias.set_value(w["b_ih"][:H])
        return cell, emb, lin, {"h": h0}
    cell = paddle.nn.GRUCell(E, H) if cell_kind == "gru" else paddle.nn.LSTMCell(E, H)
    cell.weight_ih.set_value(w["w_ih"])
    cell.weight_hh.set_value(w["w_hh"])
    cell.bias_ih.set_value(w["b_ih"])
    cell.bias_hh.set_value(w["b_hh"])
    return cell, emb, lin, (h0 if cell_kind == "gru" else (h0, paddle.to_tensor(w["c0"])))


def _decode(key, tm=False, impute=False, **extra):
    cell_kind, beam, seed, max_step, end_bias = key
    cell, emb, lin, inits = _build(cell_kind, seed, end_bias)
    dec = paddle.nn.BeamSearchDecoder(cell, start_token=START, end_token=END, beam_size=beam,
                                      embedding_fn=emb, output_fn=lin)
    kwargs = dict(KWARGS.get(seed, {}), **extra)
    return (cell, emb, lin), paddle.nn.dynamic_decode(
        dec, inits=inits, max_step_num=max_step, output_time_major=tm,
        impute_finished=impute, return_length=True, **kwargs)


@pytest.mark.parametrize("impute", [False, True])
@pytest.mark.parametrize("tm", [False, True])
@pytest.mark.parametrize("key", list(BEAM), ids=lambda k: "-".join(map(str, k)))
def test_beam_search_matches_paddle(key, tm, impute):
    want = BEAM[key]
    _, (ids, states, lengths) = _decode(key, tm, impute)
    beam = key[1]
    exp_ids = np.array(want["ids"])
    if tm:
        exp_ids = exp_ids.transpose(1, 0, 2)
    assert ids.dtype == paddle.int64 and lengths.dtype == paddle.int64
    np.testing.assert_array_equal(ids.numpy(), exp_ids)
    np.testing.assert_allclose(states.log_probs.numpy(),
                               np.reshape(want["scores"], (BATCH, beam)), rtol=1e-5)
    np.testing.assert_array_equal(lengths.numpy(), want["lengths"])
    assert type(states).__name__ == "StateWrapper"
    np.testing.assert_array_equal(states.lengths.numpy(), want["lengths"])
    # at most max_step_num + 1 steps; fewer when every beam has finished
    steps = np.shape(want["ids"])[1]
    assert steps <= key[3] + 1
    if steps < key[3] + 1:
        assert states.finished.numpy().all()
    assert (np.array(want["lengths"]) <= steps).all()


def test_early_finish_keeps_emitting_end_token():
    """A finished beam only extends with end_token (at no cost), so its backtracked ids end
    in end tokens and its length stops growing."""
    key = ("gru", 2, 22, 30, 2.5)
    _, (ids, states, lengths) = _decode(key)
    ids, lengths = ids.numpy(), lengths.numpy()
    assert ids.shape[1] < 31 and states.finished.numpy().all()
    for b in range(BATCH):
        for k in range(2):
            n = lengths[b, k]
            assert ids[b, n - 1, k] == END and (ids[b, n:, k] == END).all()
            assert (ids[b, :n - 1, k] != END).all()


@pytest.mark.parametrize("cell_kind", list(GRADS))
def test_gradients_through_beam_search(cell_kind):
    key = (cell_kind, 3, 7, 3, 0.5)
    (cell, emb, lin), (ids, states, lengths) = _decode(key)
    assert not states.log_probs.stop_gradient
    states.log_probs.sum().backward()
    params = dict(lin_w=lin.weight, lin_b=lin.bias, emb=emb.weight)
    if cell_kind == "custom":
        params["cell_w"] = cell.lin.weight
    else:
        params.update(w_ih=cell.weight_ih, w_hh=cell.weight_hh)
    for name, want in GRADS[cell_kind].items():
        got = params[name].grad
        assert got is not None, name
        np.testing.assert_allclose(got.numpy().ravel(), want, rtol=1e-4, atol=1e-5,
                                   err_msg=name)


class Greedy(paddle.nn.decode.Decoder):
    """Greedy decoding: tracks_own_finished False, so dynamic_decode counts lengths and
    imputes finished states."""

    def __init__(self, cell, emb, lin):
        self.cell, self.emb, self.lin = cell, emb, lin

    def initialize(self, inits):
        b = inits[0].shape[0]
        return (self.emb(paddle.full([b], START, dtype="int64")), inits,
                paddle.full([b], False, dtype="bool"))

    def step(self, time, inputs, states, **kwargs):
        out, new = self.cell(inputs, states)
        logits = self.lin(out)
        ids = paddle.argmax(logits, axis=-1)
        return (logits, ids), new, self.emb(ids), paddle.equal(ids, paddle.full([1], END,
                                                                                 dtype="int64"))


@pytest.mark.parametrize("impute", [False, True])
def test_user_decoder_impute_finished(impute):
    want = GREEDY_LSTM[impute]
    cell, emb, lin, inits = _build("lstm", 34, 0.6)
    (logits, ids), (h, c), lengths = paddle.nn.dynamic_decode(
        Greedy(cell, emb, lin), inits=inits, max_step_num=5, impute_finished=impute,
        return_length=True)
    np.testing.assert_array_equal(ids.numpy(), want["ids"])
    np.testing.assert_array_equal(lengths.numpy(), want["lengths"])
    np.testing.assert_allclose(h.numpy().ravel(), want["h"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy().ravel(), want["c"], rtol=1e-5, atol=1e-6)
    assert logits.shape == [BATCH, len(want["ids"][0]), V]


def test_structure_and_helpers():
    cell, emb, lin, inits = _build("lstm", 3)
    dec = paddle.nn.BeamSearchDecoder(cell, START, END, 3, emb, lin)
    assert dec.tracks_own_finished
    assert paddle.nn.BeamSearchDecoder.OutputWrapper._fields == ("scores", "predicted_ids",
                                                                  "parent_ids")
    assert paddle.nn.BeamSearchDecoder.StateWrapper._fields == ("cell_states", "log_probs",
                                                                 "finished", "lengths")
    inputs, st, finished = dec.initialize(inits)
    assert inputs.shape == [BATCH, 3, E]
    assert [s.shape for s in st.cell_states] == [[BATCH, 3, H]] * 2
    np.testing.assert_array_equal(st.log_probs.numpy(), [[0, -1e9, -1e9]] * BATCH)
    assert st.log_probs.dtype == paddle.float32 and not finished.numpy().any()
    assert st.lengths.dtype == paddle.int64 and finished.dtype == paddle.bool
    out, st2, nxt, fin = dec.step(paddle.to_tensor([0]), inputs, st)
    assert out.scores.shape == out.predicted_ids.shape == out.parent_ids.shape == [BATCH, 3]
    assert nxt.shape == [BATCH, 3, E] and fin.shape == [BATCH, 3]
    np.testing.assert_array_equal(out.parent_ids.numpy(), 0)        # all from beam 0 at first
    x = paddle.to_tensor([[1., 2.], [3., 4.]])
    np.testing.assert_array_equal(
        paddle.nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 3).numpy(),
        [[1, 2]] * 3 + [[3, 4]] * 3)
    # without return_length: two values; max_step_num=0 is one step
    res = paddle.nn.dynamic_decode(dec, inits=inits, max_step_num=0)
    assert len(res) == 2 and res[0].shape == [BATCH, 1, 3]
    # no output_fn: the cell's outputs are the logits (vocabulary = hidden size)
    dec = paddle.nn.BeamSearchDecoder(cell, START, END, 2, emb)
    ids, _ = paddle.nn.dynamic_decode(dec, inits=inits, max_step_num=2)
    assert ids.shape[0] == BATCH and ids.shape[2] == 2 and ids.numpy().max() < H
    with pytest.raises(NotImplementedError):
        paddle.nn.decode.Decoder().initialize(None)


def test_errors():
    cell, emb, lin, inits = _build("gru", 2)
    D = paddle.nn.BeamSearchDecoder
    with pytest.raises(ValueError, match="beam_size"):
        D(cell, START, END, 0, emb, lin)
    with pytest.raises(TypeError, match="beam_size"):
        D(cell, START, END, 2.0, emb, lin)
    with pytest.raises(ValueError, match="end_token"):
        D(cell, START, -1, 2, emb, lin)
    with pytest.raises(TypeError, match="cell"):
        D("gru", START, END, 2, emb, lin)
    with pytest.raises(TypeError, match="output_fn"):
        D(cell, START, END, 2, emb, 3)
    with pytest.raises(TypeError, match="inits"):
        paddle.nn.dynamic_decode(D(cell, START, END, 2, emb, lin), inits=None, max_step_num=2)
    with pytest.raises(ValueError, match="end_token 7 is out of the vocabulary"):
        paddle.nn.dynamic_decode(D(cell, START, 7, 2, emb, lin), inits=inits, max_step_num=2)
    with pytest.raises(ValueError, match="max_step_num"):
        paddle.nn.dynamic_decode(D(cell, START, END, 2, emb, lin), inits=inits,
                                 max_step_num=-1)
    with pytest.raises(TypeError, match="max_step_num"):
        paddle.nn.dynamic_decode(D(cell, START, END, 2, emb, lin), inits=inits,
                                 max_step_num=2.5)
    with pytest.raises(TypeError, match="Decoder"):
        paddle.nn.dynamic_decode(object(), inits=inits)
